Feature: Placement: pods go only where their constraints let them, and wait rather than land anywhere else
  Node affinity, pod affinity and anti-affinity, topology spread constraints and host ports are evaluated as
  kube-scheduler evaluates them. A pod that fits no node its constraints allow stays pending and says why, in
  kube-scheduler's words; preemption evicts only where the preemptor would then fit. A pod that needs something Arbiter
  does not evaluate stays pending and says what.

  Background:
    Given priority classes p0-critical 1000000, p2-regular 100 (default)

  Scenario: An H100-only job waits rather than landing on an A100
    The only H100 node is busy; two A100 nodes are idle. The job waits for the H100, and its reason counts the nodes
    as kube-scheduler would.
    Given the nodes:
      | node   | GPUs | labels   |
      | a100-1 | 8    | gpu=a100 |
      | a100-2 | 8    | gpu=a100 |
      | h100-1 | 8    | gpu=h100 |
    And tenant B runs a job "sweep" of 1 pod with 8 GPUs each, only on nodes labelled gpu=h100
    When tenant A submits a job "train" of 1 pod with 8 GPUs each, only on nodes labelled gpu=h100
    Then "train" is pending because 0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't match Pod's node affinity/selector
    And 16 GPUs are idle

  Scenario: An H100-only job runs on the H100 once it is free
    Given the nodes:
      | node   | GPUs | labels   |
      | a100-1 | 8    | gpu=a100 |
      | h100-1 | 8    | gpu=h100 |
    When tenant A submits a job "train" of 1 pod with 8 GPUs each, only on nodes labelled gpu=h100
    Then "train" is running
    And every pod of "train" runs on a node labelled gpu=h100

  Scenario: Inference replicas spread one per node
    Binpack alone would put all three on one node.
    Given a cluster of 4 nodes with 8 GPUs each
    When tenant A submits a job "embed" of 3 pods with 1 GPU each, one pod per node
    Then "embed" is running
    And the pods of "embed" run on 3 different nodes

  Scenario: Replicas that cannot each have a node of their own do not start
    Given a cluster of 2 nodes with 8 GPUs each
    When tenant A submits a job "embed" of 3 pods with 1 GPU each, one pod per node
    Then "embed" is pending because gang of 3 needs 3 tasks, 2 placeable: 0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules

  Scenario: A LeaderWorkerSet group stays in one rack
    Binpack alone would put the leader on node-1 and its worker on node-2, in another rack.
    Given the nodes:
      | node   | GPUs | labels  |
      | node-1 | 8    | rack=r1 |
      | node-2 | 8    | rack=r2 |
      | node-3 | 8    | rack=r1 |
      | node-4 | 8    | rack=r2 |
    When tenant A submits a LeaderWorkerSet "chat" of size 2 with 8 GPUs per pod, each group kept within one rack
    Then "chat" is running
    And the pods of "chat" run within one rack

  Scenario: A LeaderWorkerSet group waits rather than split over racks
    Each rack has one free node; the group needs two in one rack.
    Given the nodes:
      | node   | GPUs | labels  |
      | node-1 | 8    | rack=r1 |
      | node-2 | 8    | rack=r2 |
      | node-3 | 8    | rack=r1 |
      | node-4 | 8    | rack=r2 |
    And tenant B runs 2 jobs "batch" of 8 GPUs each, not preemptable
    When tenant A submits a LeaderWorkerSet "chat" of size 2 with 8 GPUs per pod, each group kept within one rack
    Then "chat" is pending because didn't match pod affinity rules
    And 16 GPUs are idle

  Scenario: A preemptor evicts only where it would then fit
    Both nodes run regular batch work; the urgent job may only use the H100 node, so only the batch pod there goes.
    Given the nodes:
      | node   | GPUs | labels   |
      | a100-1 | 8    | gpu=a100 |
      | h100-1 | 8    | gpu=h100 |
    And tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical, only on nodes labelled gpu=h100
    Then "urgent" is running
    And only 1 pod was evicted
    And every pod evicted by preemption ran on a node labelled gpu=h100

  Scenario: A preemptor that could fit nowhere evicts nobody
    Given the nodes:
      | node   | GPUs | labels   |
      | a100-1 | 8    | gpu=a100 |
      | a100-2 | 8    | gpu=a100 |
    And tenant B runs 2 jobs "batch" of 8 GPUs each at p2-regular
    When tenant A submits a job "urgent" of 1 pod with 8 GPUs each at p0-critical, only on nodes labelled gpu=h100
    Then "urgent" is pending because no node suits it: 0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector
    And nothing was evicted

  Scenario: A pod that asks for a resource claim waits and says why
    Arbiter does not evaluate dynamic resource allocation, so it never binds such a pod blind.
    Given a cluster of 1 node with 8 GPUs each
    When these manifests are applied:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: notebook, namespace: tenanta}
      spec:
        schedulerName: volcano
        resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
        containers: [{name: main, image: notebook, resources: {claims: [{name: gpu}]}}]
      """
    Then "notebook" is pending because pod tenanta/notebook needs spec.resourceClaims (dynamic resource allocation), which Arbiter does not evaluate

  Scenario: Work avoids spot nodes while others have room
    A PreferNoSchedule taint keeps no pod out, but kube-scheduler prefers the nodes without one the pod does not
    tolerate; so does Arbiter. Packing alone would fill spot-1 first.
    Given the nodes:
      | node       | GPUs | labels        | taints                     |
      | spot-1     | 8    | pool=spot     | spot=true:PreferNoSchedule |
      | ondemand-1 | 8    | pool=ondemand |                            |
    When tenant A submits a job "train" of 1 pod with 4 GPUs each
    Then "train" is running
    And every pod of "train" runs on a node labelled pool=ondemand

  Scenario: Spot nodes still take work when nothing else has room
    Given the nodes:
      | node       | GPUs | labels        | taints                     |
      | spot-1     | 8    | pool=spot     | spot=true:PreferNoSchedule |
      | ondemand-1 | 8    | pool=ondemand |                            |
    And tenant B runs a job "serve" of 1 pod with 8 GPUs each, only on nodes labelled pool=ondemand
    When tenant A submits a job "train" of 1 pod with 4 GPUs each
    Then "train" is running
    And every pod of "train" runs on a node labelled pool=spot

  Scenario: A job that tolerates the spot taint goes where packing puts it
    Given the nodes:
      | node       | GPUs | labels        | taints                     |
      | spot-1     | 8    | pool=spot     | spot=true:PreferNoSchedule |
      | ondemand-1 | 8    | pool=ondemand |                            |
    When tenant A submits a job "sweep" of 1 pod with 4 GPUs each, tolerating spot=true:PreferNoSchedule
    Then "sweep" is running
    And every pod of "sweep" runs on a node labelled pool=spot
