Feature: Topology: a distributed job stays inside one rack, NVLink domain or HyperNode
  Distributed training is bound by the network between its pods: a gang spread over racks trains slower than the same
  gang inside one. A job may ask for its whole gang inside one network domain (a rack, a block, a HyperNode): hard,
  and it waits rather than spread; soft, and it prefers one domain but spreads when none has room. Among the domains
  where it fits, it takes the fullest, so whole racks stay free for the next large gang. To make room for a hard gang,
  reclaim and preemption evict inside one domain only, where the fewest and cheapest victims suffice.

  Background:
    Given priority classes p0-critical 1000000, p2-regular 100 (default)

  Scenario: A 4-node training gang lands in one rack
    Batch work fills the first two nodes of rack r1; binpack alone would put the gang on the other two nodes of r1 and
    two nodes of r2.
    Given the nodes:
      | node   | GPUs | labels  |
      | node-1 | 8    | rack=r1 |
      | node-2 | 8    | rack=r1 |
      | node-3 | 8    | rack=r1 |
      | node-4 | 8    | rack=r1 |
      | node-5 | 8    | rack=r2 |
      | node-6 | 8    | rack=r2 |
      | node-7 | 8    | rack=r2 |
      | node-8 | 8    | rack=r2 |
    And tenant B runs 2 jobs "batch" of 8 GPUs each
    When tenant A submits a job "train" of 4 pods with 8 GPUs each, kept within one rack
    Then "train" is running
    And the pods of "train" run within one rack
    And every pod of "train" runs on a node labelled rack=r2

  Scenario: A training gang waits rather than spread when no rack has room
    Each rack has two free nodes: 32 GPUs are idle, but no rack holds the four pods.
    Given the nodes:
      | node   | GPUs | labels  |
      | node-1 | 8    | rack=r1 |
      | node-2 | 8    | rack=r2 |
      | node-3 | 8    | rack=r1 |
      | node-4 | 8    | rack=r2 |
      | node-5 | 8    | rack=r1 |
      | node-6 | 8    | rack=r2 |
      | node-7 | 8    | rack=r1 |
      | node-8 | 8    | rack=r2 |
    And tenant B runs 4 jobs "batch" of 8 GPUs each, not preemptable
    When tenant A submits a job "train" of 4 pods with 8 GPUs each, kept within one rack
    Then "train" is pending because no domain (hard, one rack) holds the whole gang; closest r1: 16 of 32 nvidia.com/gpu free, needs 32
    And 32 GPUs are idle

  Scenario: A gang that only prefers one rack spreads when no rack has room
    Given the nodes:
      | node   | GPUs | labels  |
      | node-1 | 8    | rack=r1 |
      | node-2 | 8    | rack=r2 |
      | node-3 | 8    | rack=r1 |
      | node-4 | 8    | rack=r2 |
      | node-5 | 8    | rack=r1 |
      | node-6 | 8    | rack=r2 |
      | node-7 | 8    | rack=r1 |
      | node-8 | 8    | rack=r2 |
    And tenant B runs 4 jobs "batch" of 8 GPUs each, not preemptable
    When tenant A submits a job "train" of 4 pods with 8 GPUs each, preferably within one rack
    Then "train" is running
    And 0 GPUs are idle

  Scenario: A gang that prefers one rack still takes one when it can
    Given the nodes:
      | node   | GPUs | labels  |
      | node-1 | 8    | rack=r1 |
      | node-2 | 8    | rack=r2 |
      | node-3 | 8    | rack=r1 |
      | node-4 | 8    | rack=r2 |
    When tenant A submits a job "train" of 2 pods with 8 GPUs each, preferably within one rack
    Then "train" is running
    And the pods of "train" run within one rack

  Scenario: A Volcano PodGroup keeps its gang inside one HyperNode
    The NVLink domains are Volcano HyperNodes of tier 1; the PodGroup asks for tier 1 at most. Batch work holds node-1,
    so only nvl-b has room for both pods.
    Given the nodes:
      | node   | GPUs | labels  |
      | node-1 | 8    | nvl=a   |
      | node-2 | 8    | nvl=a   |
      | node-3 | 8    | nvl=b   |
      | node-4 | 8    | nvl=b   |
    And tenant B runs a job "batch" of 1 pod with 8 GPUs each
    And the manifests:
      """
      apiVersion: topology.volcano.sh/v1alpha1
      kind: HyperNode
      metadata: {name: nvl-a}
      spec:
        tier: 1
        members:
        - {type: Node, selector: {regexMatch: {pattern: "node-[12]"}}}
      ---
      apiVersion: topology.volcano.sh/v1alpha1
      kind: HyperNode
      metadata: {name: nvl-b}
      spec:
        tier: 1
        members:
        - {type: Node, selector: {exactMatch: {name: node-3}}}
        - {type: Node, selector: {exactMatch: {name: node-4}}}
      ---
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: infer, namespace: tenanta}
      spec:
        minMember: 2
        networkTopology: {mode: hard, highestTierAllowed: 1}
      ---
      apiVersion: v1
      kind: List
      items:
        - apiVersion: v1
          kind: Pod
          metadata: {name: infer-0, namespace: tenanta, annotations: {scheduling.k8s.io/group-name: infer}}
          spec:
            schedulerName: volcano
            containers: [{name: main, image: server, resources: {requests: {nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}}]
        - apiVersion: v1
          kind: Pod
          metadata: {name: infer-1, namespace: tenanta, annotations: {scheduling.k8s.io/group-name: infer}}
          spec:
            schedulerName: volcano
            containers: [{name: main, image: server, resources: {requests: {nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}}]
      """
    Then "infer" is running
    And every pod of "infer" runs on a node labelled nvl=b

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set, not by weight.
  @differs-in-capacity
  Scenario: A critical gang reclaims inside one rack rather than across three
    Tenant B has borrowed all nine nodes. Taking back the newest pods would free one node in each of three racks; the
    gang needs three nodes in one rack, so reclaim takes all three victims from one rack.
    Given the nodes:
      | node   | GPUs | labels  |
      | node-1 | 8    | rack=r1 |
      | node-2 | 8    | rack=r2 |
      | node-3 | 8    | rack=r3 |
      | node-4 | 8    | rack=r1 |
      | node-5 | 8    | rack=r2 |
      | node-6 | 8    | rack=r3 |
      | node-7 | 8    | rack=r1 |
      | node-8 | 8    | rack=r2 |
      | node-9 | 8    | rack=r3 |
    And queue "a" with weight 1 that is reclaimable
    And queue "b" with weight 1 that is reclaimable
    And tenant B runs 9 jobs "batch" of 8 GPUs each in queue "b"
    And a minute passes
    When tenant A submits a job "train" of 3 pods with 8 GPUs each at p0-critical in queue "a", kept within one rack
    Then "train" is running
    And the pods of "train" run within one rack
    And only 3 pods were evicted
    And every pod evicted by reclaim ran within one rack
