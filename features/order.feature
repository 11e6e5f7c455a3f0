Feature: Order: who is served first
  Queues are served by priority, then by the lowest share of what they deserve (re-evaluated after every job, so
  allocation interleaves fairly between queues). Within a queue, jobs go by priority, then by creation; a queue that
  traverses lets a later job start when an earlier one cannot, a fifo queue makes it wait. Within a job, pods go by
  priority, leaders first, then by creation.

  Scenario: A higher-priority queue is served first
    Given a cluster of 1 node with 8 GPUs each
    And the queues:
      | queue   | weight | priority | reclaimable |
      | batch   | 1      | 0        | no          |
      | serving | 1      | 10       | no          |
    And tenant A submits a job "nightly" of 1 pod with 8 GPUs each in queue "batch"
    And tenant B submits a job "endpoint" of 1 pod with 8 GPUs each in queue "serving"
    Then "endpoint" is running
    And "nightly" is pending

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set, not by weight.
  @differs-in-capacity
  Scenario: Allocation interleaves queues by share
    Both queues submit four one-node jobs at once; neither gets the whole cluster first.
    Given a cluster of 4 nodes with 8 GPUs each
    And queue "a" with weight 1
    And queue "b" with weight 1
    And tenant A submits 4 jobs "a-batch" of 8 GPUs each in queue "a"
    And tenant B submits 4 jobs "b-batch" of 8 GPUs each in queue "b"
    Then 2 pods of "a-batch" are running
    And 2 pods of "b-batch" are running

  Scenario: Within a queue, a higher-priority job goes first though it came later
    Given a cluster of 2 nodes with 8 GPUs each
    And priority classes p1-high 10000, p2-regular 100 (default)
    And the jobs:
      | tenant | name       | pods | GPUs each | priority   |
      | A      | old-low    | 1    | 8         | p2-regular |
      | A      | new-high   | 1    | 8         | p1-high    |
      | A      | newer-high | 1    | 8         | p1-high    |
    Then "new-high" is running
    And "newer-high" is running
    And "old-low" is pending

  Scenario: Within a queue, equal priorities go in creation order
    Given a cluster of 1 node with 8 GPUs each
    And tenant A submits a job "older" of 1 pod with 8 GPUs each
    And tenant A submits a job "newer" of 1 pod with 8 GPUs each
    Then "older" is running
    And "newer" is pending

  Scenario: Within a job, the leader is placed first
    The job needs only one of its two pods and there is room for one; its worker was created before its master (and
    its name sorts first), yet the master gets the node.
    Given a cluster of 1 node with 8 GPUs each
    When these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: solo, namespace: tenanta}
      spec: {minMember: 1}
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: solo-a
        namespace: tenanta
        annotations: {scheduling.k8s.io/group-name: solo, volcano.sh/task-spec: worker}
      spec:
        schedulerName: volcano
        containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: solo-b
        namespace: tenanta
        annotations: {scheduling.k8s.io/group-name: solo, volcano.sh/task-spec: master}
      spec:
        schedulerName: volcano
        containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    Then pod "solo-b" is running
    And pod "solo-a" is pending
    And "solo" is running

  Scenario Outline: A <dequeue> queue <what> when the job at its head cannot start
    Another queue's resident holds two of the four nodes. The big job at the head of queue "q" needs three, the small
    job behind it one.
    Given a cluster of 4 nodes with 8 GPUs each
    And the queues:
      | queue | weight | dequeue   | reclaimable |
      | home  | 1      | traverse  | no          |
      | q     | 1      | <dequeue> | no          |
    And tenant H runs a job "resident" of 2 pods with 8 GPUs each in queue "home"
    When these jobs arrive:
      | tenant | name  | pods | GPUs each | queue |
      | A      | big   | 3    | 8         | q     |
      | A      | small | 1    | 8         | q     |
    Then "big" is pending
    And "small" is <small>

    Examples:
      | dequeue  | what                    | small   |
      | traverse | lets the next job start | running |
      | fifo     | makes the next job wait | pending |

  Scenario: With DRF ordering, the job holding the smaller share of the cluster goes first
    Volcano's drf plugin orders jobs of equal priority by their dominant resource share, lowest first. "big" holds 2
    of the cluster's GPUs and wants a third; "small" holds none. A node joins.
    Given the scenario sets order.jobs in policy.yaml to "[priority desc, share asc, creation asc, name asc]"
    And a cluster of 2 nodes with 8 GPUs each
    And tenant A runs a job "big" of 3 pods with 8 GPUs each, needing at least 1 pod
    When 1 more node with 8 GPUs joins the cluster
    And tenant A submits a job "small" of 1 pod with 8 GPUs each
    Then "small" is running
    And 2 pods of "big" are running

  # @differs-in-drf: the drf pack orders jobs by their dominant share, which is what this scenario shows is off.
  @differs-in-drf
  Scenario: Without DRF ordering, the older job goes first whatever it holds
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant A runs a job "big" of 3 pods with 8 GPUs each, needing at least 1 pod
    When 1 more node with 8 GPUs joins the cluster
    And tenant A submits a job "small" of 1 pod with 8 GPUs each
    Then "small" is pending
    And 3 pods of "big" are running

  Scenario: With the drf pack, a job takes a pod from the job that would still hold more than it
    Volcano's drf preemptable rule: a victim's job, without the pod, must still hold at least the share the preemptor
    would hold with it. "hog" holds 24 of 32 GPUs, "small" 8; "new" (already admitted) wants 8: one pod of "hog" goes,
    none of "small". The shipped policy never preempts equal priority.
    Given the policy pack "deploy/policies/drf"
    And a cluster of 4 nodes with 8 GPUs each
    And tenant A runs a job "hog" of 3 pods with 8 GPUs each, needing at least 1 pod
    And tenant A runs a job "small" of 1 pod with 8 GPUs each
    And a minute passes
    When these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: new, namespace: tenanta}
      spec: {minMember: 1}
      status: {phase: Inqueue}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: new-0, namespace: tenanta, annotations: {scheduling.k8s.io/group-name: new}}
      spec:
        schedulerName: volcano
        containers: [{name: main, image: new, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    Then "new" is running
    And 1 pod of "hog" was evicted by preemption
    And no pod of "small" was evicted

  Scenario: With the drf pack, no job gives up a pod that would leave it below the preemptor's share
    Given the policy pack "deploy/policies/drf"
    And a cluster of 2 nodes with 8 GPUs each
    And tenant A runs a job "hog" of 1 pod with 8 GPUs each
    And tenant A runs a job "small" of 1 pod with 8 GPUs each
    And a minute passes
    When these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: new, namespace: tenanta}
      spec: {minMember: 1}
      status: {phase: Inqueue}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: new-0, namespace: tenanta, annotations: {scheduling.k8s.io/group-name: new}}
      spec:
        schedulerName: volcano
        containers: [{name: main, image: new, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    Then "new" is pending because preempt: no job of queue "default" of lower priority runs, nor of this priority that would hold at least this job's share without one of its pods (drf)
    And nothing was evicted
