Feature: What would start it: arbiter whatif
  For a job that waits, `arbiter whatif` names the smallest changes that would start it in the next cycle: a queue's
  quota raised, a policy setting changed, one of the job's own constraints relaxed, running jobs ending, nodes added.
  Each change is checked by running the scheduler itself on the changed cluster, and each names what blocks the job
  today. The cheapest comes first: quota, then policy, then the job's own spec, then work lost, then hardware.

  Background:
    Given queue "a" with weight 1
    And queue "b" with weight 1

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set.
  @differs-in-capacity
  Scenario: A job waiting for borrowed GPUs to pass their minimum runtime starts with a shorter minimum runtime
    Tenant B borrowed tenant A's half of the cluster a moment ago. Reclaim spares pods younger than a minute, so tenant
    A's job waits; a shorter minimum runtime, tenant B's job ending, or a node more would each start it now.
    Given a cluster of 4 nodes with 8 GPUs each
    And tenant B runs 4 jobs "b-batch" of 8 GPUs each in queue "b"
    When tenant A submits a job "a-train" of 1 pod with 8 GPUs each in queue "a"
    And I ask what would start "a-train"
    Then the cheapest change that would start it is "policy.yaml churn.minRuntime: 60s ->"
    And the change "churn.minRuntime" is said to remove "the minimum runtime"
    And a change that would start it is "1 node added like node-1"
    And a change that would start it is "b-batch"
    And each change, made at that moment, starts it

  Scenario: A gang held back by its queue's capability starts when the capability is raised by one pod's worth
    Given a cluster of 2 nodes with 8 GPUs each
    And queue "research" with weight 1 and a capability of 8 GPUs
    When tenant A submits a job "train" of 2 pods with 8 GPUs each in queue "research"
    And I ask what would start "train"
    Then "train" is pending because capability
    And the cheapest change that would start it is "queue research: capability {nvidia.com/gpu: 8} -> {nvidia.com/gpu: 16}"
    And no change that would start it is "node added"
    And each change, made at that moment, starts it

  Scenario: Nothing within reach starts a job in a closed queue
    No quota, setting, node or ended job opens a queue: that is its owner's decision, and whatif says it found nothing.
    Given a cluster of 2 nodes with 8 GPUs each
    And queue "frozen" that is closed
    When tenant A submits a job "stuck" of 1 pod with 8 GPUs each in queue "frozen"
    And I ask what would start "stuck"
    Then no change within reach would start it
