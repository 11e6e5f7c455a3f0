Feature: Where Arbiter parts from Volcano, on purpose
  Volcano's scheduler was run on a real API server on the cases derived from its own tests. Where it did not do what
  Arbiter does, the difference is Arbiter's choice, listed with its reason in docs/volcano-differences.md. Each story
  here shows what Arbiter does and says what Volcano does instead: which priority a job takes, whether reclaim may
  break a gang, whether a master is evicted like a worker, how many victims preemption takes, how ties between equal
  victims are broken, and whether a pod without a PodGroup is scheduled.

  Background:
    Given priority classes p0-critical 1000000, p1-high 10000, p2-regular 100 (default)

  # Job priority: the PodGroup's class when it names one, else the highest of its pods' priorities.

  Scenario: A LeaderWorkerSet whose PodGroup names no class preempts at its pods' priority
    The PodGroup carries no priorityClassName; its pods are p0-critical. Arbiter gives the job the highest priority of
    its pods, so it preempts high-priority batch work in its own queue. (Volcano gives such a job the cluster's default
    class, p2-regular here, which is below p1-high: it cannot preempt, though every pod of it is p0-critical.)
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant B runs 2 jobs "batch" of 8 GPUs each at p1-high
    When these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: chat-pg, namespace: tenanta}
      spec: {minMember: 2}
      ---
      apiVersion: leaderworkerset.x-k8s.io/v1
      kind: LeaderWorkerSet
      metadata: {name: chat, namespace: tenanta}
      spec:
        replicas: 1
        leaderWorkerTemplate:
          size: 2
          workerTemplate:
            metadata:
              annotations: {scheduling.k8s.io/group-name: chat-pg}
            spec:
              schedulerName: volcano
              priorityClassName: p0-critical
              containers: [{name: vllm, image: vllm, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    Then "chat" is running
    And every pod of "batch" was evicted by preemption

  Scenario: When the PodGroup names a class, its class wins over its pods' priorities
    The PodGroup says p2-regular while its pods say p0-critical: the job is p2-regular, as in Volcano, and p1-high
    batch work is out of its reach. The pods' priorities count only when the PodGroup names no class.
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant B runs 2 jobs "batch" of 8 GPUs each at p1-high
    When these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: chat-pg, namespace: tenanta}
      spec: {minMember: 2, priorityClassName: p2-regular}
      ---
      apiVersion: leaderworkerset.x-k8s.io/v1
      kind: LeaderWorkerSet
      metadata: {name: chat, namespace: tenanta}
      spec:
        replicas: 1
        leaderWorkerTemplate:
          size: 2
          workerTemplate:
            metadata:
              annotations: {scheduling.k8s.io/group-name: chat-pg}
            spec:
              schedulerName: volcano
              priorityClassName: p0-critical
              containers: [{name: vllm, image: vllm, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    Then "chat" is pending
    And nothing was evicted

  Scenario: A PodGroup's class above its pods' priorities wins too
    The PodGroup says p0-critical while its pods say p2-regular: the job is p0-critical and preempts p1-high work.
    The PodGroup's class is the job's priority whichever way it differs from its pods'; it is not the higher of the two.
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant B runs 2 jobs "batch" of 8 GPUs each at p1-high
    When these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: urgent, namespace: tenanta}
      spec: {minMember: 1, priorityClassName: p0-critical}
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: urgent-0
        namespace: tenanta
        annotations: {scheduling.k8s.io/group-name: urgent}
      spec:
        schedulerName: volcano
        priorityClassName: p2-regular
        containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    Then "urgent" is running
    And 1 pod of "batch" was evicted by preemption
    And only 1 pod was evicted

  # Reclaim and strict gangs: a gang goes whole, or not at all.

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set, not by weight.
  @differs-in-capacity
  Scenario: Reclaim takes a strict gang whole rather than the one pod it needs
    Tenant B's training needs all 4 of its pods and holds the whole cluster; queue "b" deserves 24 GPUs once tenant A
    asks for 8. No single pod can go without breaking the gang, so the training goes whole (victims.gangBelowFloor:
    evict, the last resort for a job larger than its queue's share). (Volcano evicts only the one pod tenant A needs,
    leaving the training with 3 of its 4 pods, below its minMember, holding 24 GPUs it cannot use; it keeps a gang
    whole only when the gang and proportion plugins share a tier.)
    Given a cluster of 4 nodes with 8 GPUs each
    And queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs a job "b-train" of 4 pods with 8 GPUs each in queue "b"
    And a minute passes
    When tenant A submits a job "a-job" of 1 pod with 8 GPUs each in queue "a"
    Then "a-job" is running
    And every pod of "b-train" was evicted by reclaim
    And 24 GPUs are idle

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set, not by weight.
  @differs-in-capacity
  Scenario: Reclaim leaves strict gangs alone when taking one whole would go below the queue's share
    Queue "b" runs two strict pairs (32 GPUs) and deserves 24 once tenant A asks for 8. One pod would do, but it would
    break its pair, and a whole pair would take "b" to 16, below its share: nothing is evicted and tenant A waits.
    (Volcano evicts one pod of a pair, which is then below its minMember.)
    Given a cluster of 4 nodes with 8 GPUs each
    And queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs a job "b-first" of 2 pods with 8 GPUs each in queue "b"
    And tenant B runs a job "b-second" of 2 pods with 8 GPUs each in queue "b"
    And a minute passes
    When tenant A submits a job "a-job" of 1 pod with 8 GPUs each in queue "a"
    Then "a-job" is pending because no victim of queue "b" leaves it at its floor in what the task needs
    And nothing was evicted
    And "b-first" is running
    And "b-second" is running

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set, not by weight.
  @differs-in-capacity
  Scenario: Reclaim takes only the pod it needs from a gang that can spare it
    The same training, elastic: it needs 2 of its 4 pods. A pod above its minimum can go alone, so reclaim takes just
    one, as Volcano does, and the training runs on.
    Given a cluster of 4 nodes with 8 GPUs each
    And queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs a job "b-train" of 4 pods with 8 GPUs each in queue "b", needing at least 2 pods
    And a minute passes
    When tenant A submits a job "a-job" of 1 pod with 8 GPUs each in queue "a"
    Then "a-job" is running
    And 1 pod of "b-train" was evicted by reclaim
    And only 1 pod was evicted
    And "b-train" is running

  # A PyTorchJob's master is evicted last.

  Scenario: A PyTorchJob's master is evicted after its workers, even where evicting it would free less
    Tenant B's training can spare one of its 3 pods. Its master needs 4 GPUs and shares node-1 with a critical pod;
    its workers have 8 GPUs each on nodes of their own. Urgent work needs 4 GPUs: evicting the master would free
    exactly that, a worker frees twice as much. The master carries the job, so a worker goes. (Volcano has no notion
    of a master: it evicts the master as readily as a worker, here on whichever node it tries first.)
    Given a cluster of 3 nodes with 8 GPUs each
    And tenant A runs a pod "keeper" with 4 GPUs at p0-critical
    And the manifests:
      """
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      metadata: {name: train, namespace: tenantb}
      spec:
        runPolicy:
          schedulingPolicy: {minAvailable: 2, priorityClass: p2-regular}
        pytorchReplicaSpecs:
          Master:
            replicas: 1
            template:
              spec:
                containers: [{name: pytorch, image: trainer, resources: {requests: {nvidia.com/gpu: "4"}}}]
          Worker:
            replicas: 2
            template:
              spec:
                containers: [{name: pytorch, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    When tenant A submits a pod "urgent" with 4 GPUs at p0-critical
    Then "urgent" is running
    And 1 pod of "train" was evicted by preemption
    And only 1 pod was evicted
    And the master of "train" is still running

  Scenario: Without "leader last" in the victim order, the master goes like any worker
    The same cluster, with a victims.order that has no "leader last" key: a master ranks as a worker does, as in
    Volcano, so the plan that frees least wins, and that is the master's. The key is what keeps the master.
    Given the scenario sets victims.order in policy.yaml to "[surplus first, priority asc, newest first]"
    And a cluster of 3 nodes with 8 GPUs each
    And tenant A runs a pod "keeper" with 4 GPUs at p0-critical
    And the manifests:
      """
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      metadata: {name: train, namespace: tenantb}
      spec:
        runPolicy:
          schedulingPolicy: {minAvailable: 2, priorityClass: p2-regular}
        pytorchReplicaSpecs:
          Master:
            replicas: 1
            template:
              spec:
                containers: [{name: pytorch, image: trainer, resources: {requests: {nvidia.com/gpu: "4"}}}]
          Worker:
            replicas: 2
            template:
              spec:
                containers: [{name: pytorch, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    When tenant A submits a pod "urgent" with 4 GPUs at p0-critical
    Then "urgent" is running
    And pod "train-master-0" was evicted by preemption
    And only 1 pod was evicted

  # Preemption chooses a minimal set of victims.

  Scenario: Preemption gives back a victim the plan turned out not to need
    Node-1 holds a 2-GPU pod at p2-regular and a 6-GPU pod at p1-high; urgent work needs 6 GPUs. Taking victims
    lowest priority first, the 2-GPU pod goes first and is not enough; once the 6-GPU pod is taken, the 2-GPU pod is
    not needed any more and is given back. (Volcano's preempt is greedy: it evicts both, lowest priority first, and
    gives nothing back, unless its topology-aware preemption is on.)
    Given a cluster of 1 node with 8 GPUs each
    And tenant B runs a pod "cheap" with 2 GPUs at p2-regular
    And tenant B runs a pod "dear" with 6 GPUs at p1-high
    When tenant A submits a pod "urgent" with 6 GPUs at p0-critical
    Then "urgent" is running
    And pod "dear" was evicted by preemption
    And only 1 pod was evicted
    And pod "cheap" is running

  Scenario: Preemption evicts one pod on another node rather than two of lower priority
    Node-1 holds two 4-GPU pods at p2-regular, node-2 one 8-GPU pod at p1-high; urgent work needs a whole node.
    Fewer victims win before lower priorities: the one p1-high pod goes. (Volcano takes the first node in its node
    order where evicting lowest priority first frees enough, whatever the other nodes would cost.)
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant B runs 2 jobs "small" of 4 GPUs each at p2-regular
    And tenant B runs a pod "big" with 8 GPUs at p1-high
    When tenant A submits a pod "urgent" with 8 GPUs at p0-critical
    Then "urgent" is running
    And pod "big" was evicted by preemption
    And no pod of "small" was evicted

  # Ties between equal victims are broken the same way every time.

  Scenario Outline: Of two equal victims the newer goes, run after run (<nodes>)
    "<older>" and "<newer>" are alike but for age: same priority, same queue, same size, no leaders, no gangs. On one
    node the victim order (victims.order, then the pod's name) decides; across nodes, plans of as many victims compare
    their most precious victim without age, then what they free beyond need, then with age and name, then node order.
    So the newer goes, whatever the names, and on two nodes although the older runs on the first. Each row is a run of
    its own; a row repeated is the same cluster scheduled again and evicts the same pod. (Volcano orders equal victims
    by creation time, then by UID, which on a real API server is random: of pods created in the same second, any may
    be evicted.)
    Given a cluster of <nodes> with 8 GPUs each
    And tenant B runs a pod "<older>" with <GPUs> GPUs at p2-regular
    And tenant B runs a pod "<newer>" with <GPUs> GPUs at p2-regular
    When tenant A submits a pod "urgent" with <GPUs> GPUs at p0-critical
    Then "urgent" is running
    And pod "<newer>" was evicted by preemption
    And pod "<older>" is running
    And only 1 pod was evicted

    Examples:
      | nodes   | GPUs | older | newer |
      | 1 node  | 4    | alpha | beta  |
      | 1 node  | 4    | alpha | beta  |
      | 1 node  | 4    | beta  | alpha |
      | 2 nodes | 8    | alpha | beta  |
      | 2 nodes | 8    | alpha | beta  |
      | 2 nodes | 8    | beta  | alpha |

  # A pod without a PodGroup is a gang of one.

  Scenario: A pod without a PodGroup is scheduled at once, as a gang of one
    The pod names no PodGroup, only a queue. Arbiter schedules it as a gang of one in that queue and writes no
    PodGroup. (Volcano's scheduler ignores the pod until Volcano's controller has made a PodGroup for it.)
    Given a cluster of 1 node with 8 GPUs each
    And queue "a" with weight 1
    When tenant A submits a pod "notebook" with 8 GPUs in queue "a"
    Then "notebook" is running
    And queue "a" holds 8 GPUs

  Scenario: A pod naming a PodGroup that does not exist yet waits for it
    Arbiter makes a gang of one only for a pod that names no PodGroup. A pod whose PodGroup is still to come waits
    for it, as in Volcano, and starts once it is there.
    Given a cluster of 1 node with 8 GPUs each
    When these manifests are applied:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: train-0
        namespace: tenanta
        annotations: {scheduling.k8s.io/group-name: train}
      spec:
        schedulerName: volcano
        containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    Then pod "tenanta/train-0" is pending
    And 8 GPUs are idle
    When these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: train, namespace: tenanta}
      spec: {minMember: 1}
      """
    Then pod "tenanta/train-0" is running
