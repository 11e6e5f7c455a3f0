Feature: Victims: who is evicted when urgent work needs room
  When preemption or reclaim must evict, the scheduler takes the fewest pods that let the waiting work run. A pod
  marked volcano.sh/preemptable "false" is never a victim. A victim job that would drop below its minimum is evicted
  whole, never left as a broken gang holding GPUs. Among candidates: members a job can spare (above its minimum)
  first, then the lowest priority, masters and leaders last, and the newest first.

  Background:
    Given priority classes p0-critical 1000000, p1-high 10000, p2-regular 100 (default)

  Scenario: A victim gang that would break is evicted whole
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant B runs a job "pair" of 2 pods with 8 GPUs each at p2-regular
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical
    Then "urgent" is running
    And every pod of "pair" was evicted by preemption
    And 8 GPUs are idle

  Scenario: Only as many victims as needed: one big pod rather than two small ones
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant B runs a pod "big" with 8 GPUs at p2-regular
    And tenant B runs 2 jobs "small" of 4 GPUs each at p2-regular
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical
    Then "urgent" is running
    And pod "big" was evicted by preemption
    And only 1 pod was evicted
    And no pod of "small" was evicted

  Scenario: Members a job can spare go first, and its master stays
    Given a cluster of 4 nodes with 8 GPUs each
    And tenant B runs a PyTorchJob "elastic" with 1 master and 3 workers of 8 GPUs each at p2-regular, needing at least 2 pods
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical
    Then "urgent" is running
    And 1 pod of "elastic" was evicted by preemption
    And pod "elastic-worker-2" was evicted by preemption
    And the master of "elastic" is still running
    And "elastic" is running

  Scenario: The lowest priority goes first, even when it is older
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant B runs a pod "cheap" with 8 GPUs at p2-regular
    And tenant B runs a pod "dear" with 8 GPUs at p1-high
    When tenant A submits a pod "urgent" with 8 GPUs at p0-critical
    Then "urgent" is running
    And pod "cheap" was evicted by preemption
    And no pod of "dear" was evicted

  Scenario: A leader goes last, even when it is the newest member
    The PodGroup needs only 1 of its 3 pods; its master was created after its workers, so "newest first" alone would
    pick the master.
    Given a cluster of 3 nodes with 8 GPUs each
    And the manifests:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: lead, namespace: tenantb}
      spec: {minMember: 1, priorityClassName: p2-regular}
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: lead-worker-0
        namespace: tenantb
        annotations: {scheduling.k8s.io/group-name: lead, volcano.sh/task-spec: worker}
      spec:
        schedulerName: volcano
        priorityClassName: p2-regular
        containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: lead-worker-1
        namespace: tenantb
        annotations: {scheduling.k8s.io/group-name: lead, volcano.sh/task-spec: worker}
      spec:
        schedulerName: volcano
        priorityClassName: p2-regular
        containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: lead-master-0
        namespace: tenantb
        annotations: {scheduling.k8s.io/group-name: lead, volcano.sh/task-spec: master}
      spec:
        schedulerName: volcano
        priorityClassName: p2-regular
        containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    When tenant A submits a pod "urgent" with 8 GPUs at p0-critical
    Then "urgent" is running
    And pod "lead-worker-1" was evicted by preemption
    And pod "lead-master-0" is running
    And "lead" is running

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set, not by weight.
  @differs-in-capacity
  Scenario: Reclaim takes from the queue served last
    Queues "b" and "c" both hold 24 GPUs and deserve 16 (queue "a" also wants 16 GPUs only nodes that do not exist
    have): either could give a node back and still hold its share. "b" has the higher priority, so "c" gives back
    first.
    Given a cluster of 6 nodes with 8 GPUs each
    And queue "a" with weight 1
    And queue "b" with weight 1 and priority 10
    And queue "c" with weight 1 and priority 0
    And tenant B runs 3 jobs "b-batch" of 8 GPUs each in queue "b"
    And tenant C runs 3 jobs "c-batch" of 8 GPUs each in queue "c"
    And a minute passes
    When tenant A submits a job "a-job" of 1 pod with 8 GPUs each in queue "a"
    And tenant A submits a job "a-later" of 2 pods with 8 GPUs each in queue "a", only on nodes labelled pool=none
    Then "a-job" is running
    And 1 pod of "c-batch" was evicted by reclaim
    And no pod of "b-batch" was evicted

  # A young pod is spared from reclaim (churn.drl), but "not preemptable" still protects it from everything.
  Scenario: Pods marked not preemptable are never evicted
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant B runs 2 jobs "steady" of 8 GPUs each at p2-regular, not preemptable
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical
    Then "urgent" is pending
    And nothing was evicted

  Scenario: The unprotected pod is evicted, whatever the order says
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant B runs a pod "plain" with 8 GPUs at p2-regular
    And tenant B runs a pod "guarded" with 8 GPUs at p2-regular, not preemptable
    And a minute passes
    When tenant A submits a pod "urgent" with 8 GPUs at p0-critical
    Then "urgent" is running
    And pod "plain" was evicted by preemption
    And pod "guarded" is running

  Scenario: Of two plans with as many victims, the one that frees less wins
    Urgent work needs 4 GPUs. On node-1, evicting "mid" (4 GPUs) makes room; on node-2, evicting "big" (8 GPUs) does.
    "big" is newer, but its node would give twice what is needed: "mid" goes.
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant B runs a pod "mid" with 4 GPUs at p2-regular
    And tenant B runs a pod "keeper" with 4 GPUs at p0-critical
    And tenant B runs a pod "big" with 8 GPUs at p2-regular
    When tenant A submits a pod "urgent" with 4 GPUs at p0-critical
    Then "urgent" is running
    And 1 pod of "mid" was evicted by preemption
    And no pod of "big" was evicted

  Scenario: A gang straddling two nodes is not taken where two pods on one node make room
    Urgent work needs a whole node. Evicting one member of "pair" would break it, so the pair would go whole and free
    16 GPUs on two nodes; the two small jobs on node-1 free exactly the 8 needed. Both plans evict two pods: the one
    that frees less wins, although the pair is newer.
    Given a cluster of 3 nodes with 8 GPUs each
    And tenant B runs 2 jobs "small" of 4 GPUs each at p2-regular
    And tenant B runs a job "pair" of 2 pods with 8 GPUs each at p2-regular
    When tenant A submits a pod "urgent" with 8 GPUs at p0-critical
    Then "urgent" is running
    And 2 pods of "small" were evicted by preemption
    And no pod of "pair" was evicted

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set, not by weight.
  @differs-in-capacity
  Scenario: A training job larger than its queue's share stays where the policy spares it
    Tenant B's training needs all 4 of its pods (32 GPUs); B deserves 16 once tenant A asks. Taking it back would leave
    B below its share, so with gangBelowFloor "spare" the training keeps running and A waits, saying why. (The
    shipped "evict" takes the training whole as a last resort: see the seed story.)
    Given a cluster of 4 nodes with 8 GPUs each
    And queue "tenanta" with weight 1 that is reclaimable
    And queue "tenantb" with weight 1 that is reclaimable
    And the scenario sets victims.gangBelowFloor in policy.yaml to "spare"
    And tenant B runs a PyTorchJob "heavy" with 1 master and 3 workers of 8 GPUs each at p2-regular in queue "tenantb"
    And a minute passes
    When tenant A submits a LeaderWorkerSet "qwen" of size 2 with 8 GPUs per pod at p0-critical in queue "tenanta"
    Then nothing was evicted
    And "heavy" is running
    And "qwen" is pending because job "tenantb/heavy" is larger than its queue's share and would leave the queue below its floor (victims.gangBelowFloor: spare)
