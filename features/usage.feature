Feature: Fairness by decayed past usage
  Kueue's admission fair sharing and KAI's time-based fairshare remember what each tenant used: with a usage
  half-life (shares.usageHalfLife) and the queue order key usage, a queue that used more of the cluster recently is
  served after one that used less, even when both hold the same now. The fair-usage pack turns it on (half-life 24h);
  the shipped policy does not track usage. Deserved shares still come first: the usage order decides who goes first
  among queues that would pass their deserved share.

  Scenario: With the fair-usage pack, a queue that used the cluster recently waits behind one that did not
    Queue "a" stored a past usage of 8 GPUs (as a scheduler restarted with a usage half-life reads it back from the
    Queue); "b" none. Each submits a job of 8 GPUs to one node of 8, "a" first: both would pass their deserved 4 GPUs,
    and "b", which used less, goes first.
    Given the policy pack "deploy/policies/fair-usage"
    And a cluster of 1 node with 8 GPUs each
    And queue "a" with weight 1 whose past usage is 8 GPUs
    And queue "b" with weight 1
    And tenant A submits a job "a-train" of 1 pod with 8 GPUs each in queue "a"
    And tenant B submits a job "b-train" of 1 pod with 8 GPUs each in queue "b"
    Then "b-train" is running
    And "a-train" is pending

  Scenario: With the fair-usage pack, the queue that held the whole cluster for an hour waits behind the other
    "a" holds all 8 GPUs for an hour; "b" then reclaims its 4. Now both hold 4 (the same share), a node joins, and each
    asks for 8 more: "b", which used less in the past cycles, is served first.
    Given the policy pack "deploy/policies/fair-usage"
    And a cluster of 1 node with 8 GPUs each
    And queue "a" with weight 1
    And queue "b" with weight 1
    And tenant A runs 8 jobs "a-batch" of 1 GPU each in queue "a"
    And an hour passes
    When tenant B submits 4 jobs "b-batch" of 1 GPU each in queue "b"
    Then queue "b" holds 4 GPUs
    When 1 more node with 8 GPUs joins the cluster
    And tenant A submits a job "a-train" of 1 pod with 8 GPUs each in queue "a"
    And tenant B submits a job "b-train" of 1 pod with 8 GPUs each in queue "b"
    Then "b-train" is running
    And "a-train" is pending

  # @differs-in-fair-usage: the pack ranks queues by their past usage, which is what this scenario shows is off.
  # @differs-in-capacity: that pack shares by each queue's spec.deserved, which these queues do not set.
  @differs-in-fair-usage @differs-in-capacity
  Scenario: Without a usage half-life, queues of equal share are served by name whatever they used before
    The same story with the shipped policy: "a" and "b" hold the same share, and "a" comes first by name.
    Given a cluster of 1 node with 8 GPUs each
    And queue "a" with weight 1 whose past usage is 8 GPUs
    And queue "b" with weight 1
    And tenant A runs 8 jobs "a-batch" of 1 GPU each in queue "a"
    And an hour passes
    When tenant B submits 4 jobs "b-batch" of 1 GPU each in queue "b"
    Then queue "b" holds 4 GPUs
    When 1 more node with 8 GPUs joins the cluster
    And tenant A submits a job "a-train" of 1 pod with 8 GPUs each in queue "a"
    And tenant B submits a job "b-train" of 1 pod with 8 GPUs each in queue "b"
    Then "a-train" is running
    And "b-train" is pending
