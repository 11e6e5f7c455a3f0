Feature: Churn control: the scheduler evicts reluctantly
  Every eviction throws work away, so reclaim spares pods that have run for less than a minute, no cycle evicts more
  than 20 pods from any one queue (100 in all), and reclaim never evicts work whose queue would then be entitled to
  take it straight back. Once a pod has run its minute, it can be reclaimed.

  Background:
    Given queue "a" with weight 1
    And queue "b" with weight 1

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set, not by weight.
  @differs-in-capacity
  Scenario: Reclaim waits until the borrowed pods have run for a minute
    Given a cluster of 4 nodes with 8 GPUs each
    And tenant B runs 4 jobs "b-batch" of 8 GPUs each in queue "b"
    When tenant A submits a job "a-train" of 1 pod with 8 GPUs each in queue "a"
    Then "a-train" is pending
    And nothing was evicted
    When a minute passes
    Then "a-train" is running
    And 1 pod of "b-batch" was evicted by reclaim

  @differs-in-capacity
  Scenario: No cycle takes more than 20 pods from one queue
    Tenant A deserves three quarters of the cluster and takes back 24 one-GPU pods: 20 in one cycle, the rest in the
    next.
    Given a cluster of 4 nodes with 8 GPUs each
    And queue "big" with weight 3
    And tenant B runs 32 jobs "b-batch" of 1 GPU each in queue "b"
    And a minute passes
    When tenant A submits 24 jobs "a-batch" of 1 GPU each in queue "big"
    Then "a-batch" is running
    And 24 pods of "b-batch" were evicted by reclaim
    And no cycle evicted more than 20 pods
    And queue "big" holds 24 GPUs

  @differs-in-capacity
  Scenario: Once a queue has given its 20 pods, reclaim takes from the next queue above its share
    Tenant A deserves half of the cluster. Queue "b" is 28 GPUs over its share and queue "c" 4: the first cycle takes
    20 pods from "b" and then turns to "c"; the next cycle takes the rest from "b".
    Given a cluster of 8 nodes with 8 GPUs each
    And queue "c" with weight 1
    And queue "big" with weight 2
    And tenant B runs 44 jobs "b-batch" of 1 GPU each in queue "b"
    And tenant C runs 20 jobs "c-batch" of 1 GPU each in queue "c"
    And a minute passes
    When tenant A submits 32 jobs "a-batch" of 1 GPU each in queue "big"
    Then "a-batch" is running
    And 28 pods of "b-batch" were evicted by reclaim
    And 4 pods of "c-batch" were evicted by reclaim
    And no cycle evicted more than 20 pods of "b-batch"
    And one cycle evicted 24 pods

  Scenario: No ping-pong: a queue does not take a node that would be taken straight back
    Each queue deserves half of one node; tenant B's pod needs the whole node, and so would tenant A's.
    Given a cluster of 1 node with 8 GPUs each
    And tenant B runs a job "b-job" of 1 pod with 8 GPUs each in queue "b"
    And a minute passes
    When tenant A submits a job "a-job" of 1 pod with 8 GPUs each in queue "a"
    Then "a-job" is pending
    And nothing was evicted
    And queue "b" holds 8 GPUs

  # The budget limits what is added to a cycle's evictions: the first gang to evict in a cycle may exceed it.
  @differs-in-capacity
  Scenario: A gang that needs more victims than one cycle's budget still starts
    Given a cluster of 4 nodes with 8 GPUs each
    And queue "big" with weight 3
    And tenant B runs 32 jobs "b-batch" of 1 GPU each in queue "b"
    And a minute passes
    When tenant A submits a job "a-gang" of 24 pods with 1 GPU each in queue "big"
    Then "a-gang" is running
    And 24 pods of "b-batch" were evicted by reclaim
