Feature: Preemption: urgent work evicts less important work of its own queue
  A job that cannot start may evict running pods of strictly lower-priority jobs in its own queue, also when the
  nodes have room but the queue's capability does not. Preemption never crosses queues (that is reclaim's job), never
  takes equal or higher priorities, and a job whose priority class or pods say "preemptionPolicy: Never" waits
  instead of preempting.

  Background:
    Given a cluster of 2 nodes with 8 GPUs each
    And priority classes p0-critical 1000000, p1-high 10000, p2-regular 100 (default)

  Scenario: A higher-priority job evicts a lower-priority one and takes its node
    Given tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical
    Then "urgent" is running
    And 1 pod of "batch" was evicted by preemption
    And only 1 pod was evicted

  Scenario: Equal priority never preempts
    Given tenant B runs 2 jobs "batch" of 8 GPUs each at p1-high
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p1-high
    Then "urgent" is pending
    And nothing was evicted

  Scenario: Lower priority never preempts
    Given tenant B runs 2 jobs "batch" of 8 GPUs each at p1-high
    When tenant A submits a job "eager" of 1 pod with 8 GPUs each at p2-regular
    Then "eager" is pending
    And no pod of "batch" was evicted

  Scenario: A job whose priority class never preempts waits instead
    Given priority class p0-polite 1000000 (never preempts)
    And tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular
    When tenant A submits a job "polite" of 1 pod with 8 GPUs each at p0-polite
    Then "polite" is pending
    And nothing was evicted

  Scenario: A job whose pods say preemptionPolicy Never waits instead
    Given tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular
    When tenant A submits a job "polite" of 1 pod with 8 GPUs each at p0-critical, never preempting
    Then "polite" is pending
    And nothing was evicted

  Scenario: Preemption never crosses queues
    Given queue "a" with weight 1
    And queue "b" with weight 1 that is not reclaimable
    And tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular in queue "b"
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical in queue "a"
    Then "urgent" is pending
    And nothing was evicted

  Scenario: Preemption also makes room under the queue's capability when the nodes have room
    Queue "q" may hold 16 GPUs and tenant B's batch jobs hold them all, though half the cluster is idle. Tenant A's
    critical job is admitted beyond the capability because it can preempt, and takes one batch job's place.
    Given 2 more nodes with 8 GPUs each join the cluster
    And queue "q" with weight 1 and a capability of 16 GPUs
    And tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular in queue "q"
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical in queue "q"
    Then "urgent" is running
    And 1 pod of "batch" was evicted by preemption
    And queue "q" holds 16 GPUs
    And 16 GPUs are idle

  Scenario: A CPU-only pod is not held back by its queue's GPU capability
    Queue "q" may hold 8 GPUs, yet its batch job holds 16 (it ran before the capability was lowered). A notebook of
    the queue asks for CPUs only, so the GPU capability has nothing to say about it: it starts on the CPUs left beside
    the batch job and evicts nothing. (Volcano checks a capability only in the resources a pod asks for. Arbiter
    checked every capped resource, so such a pod evicted GPU work it did not need.)
    Given queue "q" with weight 1 and a capability of 8 GPUs
    And the manifests:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: batch, namespace: tenantb}
      spec: {minMember: 2, queue: q, priorityClassName: p2-regular}
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: batch-0
        namespace: tenantb
        annotations: {scheduling.k8s.io/group-name: batch}
      spec:
        schedulerName: volcano
        nodeName: node-1
        priorityClassName: p2-regular
        containers: [{name: main, image: trainer, resources: {requests: {cpu: "8", nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: batch-1
        namespace: tenantb
        annotations: {scheduling.k8s.io/group-name: batch}
      spec:
        schedulerName: volcano
        nodeName: node-2
        priorityClassName: p2-regular
        containers: [{name: main, image: trainer, resources: {requests: {cpu: "8", nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      """
    When these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: notebook, namespace: tenanta}
      spec: {minMember: 1, queue: q, priorityClassName: p0-critical}
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: notebook-0
        namespace: tenanta
        annotations: {scheduling.k8s.io/group-name: notebook}
      spec:
        schedulerName: volcano
        priorityClassName: p0-critical
        containers: [{name: main, image: notebook, resources: {requests: {cpu: "4"}}}]
      """
    Then "notebook" is running
    And nothing was evicted

  Scenario: An elastic urgent job evicts only what it needs to start
    The urgent job can start with 1 of its 2 pods. Preemption stops as soon as it can start; its second pod waits for
    a node to free up rather than evicting more work.
    Given tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular
    When tenant A submits a job "urgent" of 2 pods with 8 GPUs each at p0-critical, needing at least 1 pod
    Then "urgent" is running
    And 1 pod of "urgent" is running
    And only 1 pod was evicted

  Scenario: A critical service whose PodGroup names no priority class preempts as critical
    A LeaderWorkerSet names its PodGroup in its pod templates, and the PodGroup itself carries no priorityClassName
    (as in the seed article); its pods are p0-critical. The job takes the highest priority of its pods, so it preempts
    regular work in its own queue.
    Given tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular
    When these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: serve-pg, namespace: tenanta}
      spec: {minMember: 2}
      ---
      apiVersion: leaderworkerset.x-k8s.io/v1
      kind: LeaderWorkerSet
      metadata: {name: serve, namespace: tenanta}
      spec:
        replicas: 1
        leaderWorkerTemplate:
          size: 2
          workerTemplate:
            metadata:
              annotations: {scheduling.k8s.io/group-name: serve-pg}
            spec:
              schedulerName: volcano
              priorityClassName: p0-critical
              containers: [{name: vllm, image: vllm, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    Then "serve" is running
    And 2 pods of "batch" were evicted by preemption

  Scenario: A job whose PodGroup is marked not preemptable is never a victim
    The PodGroup's volcano.sh/preemptable speaks for the whole job, as Volcano's gang-preempt reads it.
    Given tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular, whose PodGroup is not preemptable
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical
    Then "urgent" is pending
    And nothing was evicted

  Scenario: A PodGroup marked preemptable wins over its pods' markers
    Each pod of "batch" is marked not preemptable, but its PodGroup says it is: the job's word wins.
    Given tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular, not preemptable, whose PodGroup is preemptable
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical
    Then "urgent" is running
    And only 1 pod was evicted

  Scenario: Critical work at the non-preemptible priority is never a victim
    With victims.nonPreemptibleFrom set, a job of that priority or more is never evicted, whatever preempts it
    (KAI's non-preemptible priorities). Here p1-high is the level; a p0 job waits.
    Given the scenario sets victims.nonPreemptibleFrom in policy.yaml to "10000"
    And tenant B runs 2 jobs "serve" of 8 GPUs each at p1-high
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical
    Then "urgent" is pending
    And nothing was evicted

  Scenario: Work below the non-preemptible priority is preempted as before
    Given the scenario sets victims.nonPreemptibleFrom in policy.yaml to "10000"
    And tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical
    Then "urgent" is running
    And only 1 pod was evicted
