# The capacity pack shares by each queue's spec.deserved and treats queues as one flat level: not this feature.
@differs-in-capacity
Feature: Queue tree: teams share the cluster, their sub-queues share the team's part
  Queues form a tree through their parent. Reclaim looks for victims among a queue's siblings first, then further
  up the tree, and a queue whose parent does not exist is closed rather than breaking the scheduler.

  Scenario: Reclaim takes from a sibling before a cousin
    On 64 GPUs, teams weighing 5:3 deserve 40 and 24. In team-a, a1 wants 24 (16 of them only on nodes that do not
    exist) and deserves 20, so a2 deserves 20 but holds 32; team-b's b1 deserves 24 but holds 32. Either could give a
    node back and still hold its share, and a1 takes its node from its sibling a2, not from its cousin b1.
    Given a cluster of 8 nodes with 8 GPUs each
    And queue "team-a" with weight 5
    And queue "team-b" with weight 3
    And queue "a1" with weight 1 under "team-a"
    And queue "a2" with weight 1 under "team-a"
    And queue "b1" with weight 1 under "team-b"
    And tenant X runs 4 jobs "a2-batch" of 8 GPUs each in queue "a2"
    And tenant Y runs 4 jobs "b1-batch" of 8 GPUs each in queue "b1"
    And a minute passes
    When tenant A submits a job "a1-job" of 1 pod with 8 GPUs each in queue "a1"
    And tenant A submits a job "a1-later" of 2 pods with 8 GPUs each in queue "a1", only on nodes labelled pool=none
    Then "a1-job" is running
    And 1 pod of "a2-batch" was evicted by reclaim
    And no pod of "b1-batch" was evicted
    And queue "a1" deserves 20 GPUs

  Scenario: A queue whose parent does not exist is closed, and the rest of the cluster schedules
    Given a cluster of 2 nodes with 8 GPUs each
    And queue "orphan" with weight 1 under "nowhere"
    And queue "fine" with weight 1
    When tenant A submits a job "stuck" of 1 pod with 8 GPUs each in queue "orphan"
    And tenant B submits a job "works" of 1 pod with 8 GPUs each in queue "fine"
    Then "stuck" is pending because queue "orphan" is not open
    And "works" is running

  Scenario: A sub-queue takes back its half from its sibling when their team is at its capability
    Team "ml" may use at most 16 GPUs, which "ml-train" and "ml-serve" share. Training borrowed all 16 while serving
    was idle. When serving needs its half it takes it back from its sibling, although the team is at its capability:
    evicting the sibling frees room under the team. (The cluster's other 16 GPUs are idle, and stay so.)
    Given a cluster of 4 nodes with 8 GPUs each
    And queue "ml" with weight 1 and a capability of 16 GPUs
    And queue "ml-train" with weight 1 under "ml"
    And queue "ml-serve" with weight 1 under "ml"
    And tenant T runs 2 jobs "train" of 8 GPUs each in queue "ml-train"
    And a minute passes
    When tenant S submits a job "serve" of 1 pod with 8 GPUs each in queue "ml-serve"
    Then "serve" is running
    And 1 pod of "train" was evicted by reclaim
    And queue "ml-serve" holds 8 GPUs
    And queue "ml-train" holds 8 GPUs
    And 16 GPUs are idle
