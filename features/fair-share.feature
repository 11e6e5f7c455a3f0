# The capacity pack shares by each queue's spec.deserved and treats queues as one flat level: not this feature.
@differs-in-capacity
Feature: Fair share: busy queues split the cluster by weight
  Volcano's proportion policy: each queue deserves a part of the cluster in proportion to its weight, but never more
  than it asks for or than its capability allows, and a queue's guarantee is set aside for it first. What one queue
  does not ask for is shared among the others. In a queue tree, children share what their parent deserves, by their
  own weights. Allocation then serves each queue until it holds what it deserves.

  Background:
    Given a cluster of 4 nodes with 8 GPUs each

  Scenario Outline: Two busy queues with weights <research>:<product> split 32 GPUs <research gpus>/<product gpus>
    Given queue "research" with weight <research>
    And queue "product" with weight <product>
    And tenant R submits 32 jobs "r-batch" of 1 GPU each in queue "research"
    And tenant P submits 32 jobs "p-batch" of 1 GPU each in queue "product"
    Then queue "research" deserves <research gpus> GPUs
    And queue "product" deserves <product gpus> GPUs
    And queue "research" holds <research gpus> GPUs
    And queue "product" holds <product gpus> GPUs

    Examples:
      | research | product | research gpus | product gpus |
      | 1        | 1       | 16            | 16           |
      | 1        | 3       | 8             | 24           |
      | 3        | 1       | 24            | 8            |
      | 1        | 7       | 4             | 28           |

  Scenario Outline: Three busy queues with weights <a>:<b>:<c> split 32 GPUs <a gpus>/<b gpus>/<c gpus>
    Given the queues:
      | queue | weight |
      | a     | <a>    |
      | b     | <b>    |
      | c     | <c>    |
    And the jobs:
      | tenant | kind | name    | pods | GPUs each | queue |
      | A      | jobs | a-batch | 32   | 1         | a     |
      | B      | jobs | b-batch | 32   | 1         | b     |
      | C      | jobs | c-batch | 32   | 1         | c     |
    Then queue "a" holds <a gpus> GPUs
    And queue "b" holds <b gpus> GPUs
    And queue "c" holds <c gpus> GPUs

    Examples:
      | a | b | c | a gpus | b gpus | c gpus |
      | 2 | 1 | 1 | 16     | 8      | 8      |
      | 1 | 2 | 5 | 4      | 8      | 20     |
      | 6 | 1 | 1 | 24     | 4      | 4      |

  Scenario: A queue that asks for less than its part leaves the rest to the others
    Given queue "research" with weight 1
    And queue "product" with weight 1
    And tenant R submits 8 jobs "r-batch" of 1 GPU each in queue "research"
    And tenant P submits 32 jobs "p-batch" of 1 GPU each in queue "product"
    Then queue "research" deserves 8 GPUs
    And queue "product" deserves 24 GPUs
    And "r-batch" is running
    And queue "product" holds 24 GPUs

  Scenario: An idle queue lends its whole part to a busy one
    Given queue "research" with weight 1
    And queue "product" with weight 1
    And tenant P submits 32 jobs "p-batch" of 1 GPU each in queue "product"
    Then queue "research" deserves 0 GPUs
    And queue "product" holds 32 GPUs
    And "p-batch" is running

  Scenario: A capability caps what a queue deserves, however heavy its weight
    Given queue "research" with weight 3 and a capability of 4 GPUs
    And queue "product" with weight 1
    And tenant R submits 32 jobs "r-batch" of 1 GPU each in queue "research"
    And tenant P submits 32 jobs "p-batch" of 1 GPU each in queue "product"
    Then queue "research" deserves 4 GPUs
    And queue "research" holds 4 GPUs
    And queue "product" holds 28 GPUs

  Scenario: A guarantee is set aside for its queue even when its weight would give it less
    Given queue "small" with weight 1 and a guarantee of 16 GPUs
    And queue "big" with weight 7
    And tenant S submits 32 jobs "s-batch" of 1 GPU each in queue "small"
    And tenant B submits 32 jobs "b-batch" of 1 GPU each in queue "big"
    Then queue "small" holds 16 GPUs
    And queue "big" holds 16 GPUs

  Scenario: A queue that holds what it deserves is not served further
    Given queue "research" with weight 1
    And queue "product" with weight 1
    And tenant R submits 16 jobs "r-batch" of 1 GPU each in queue "research"
    And tenant R submits a job "late" of 1 pod with 1 GPU each in queue "research"
    And tenant P submits 32 jobs "p-batch" of 1 GPU each in queue "product"
    Then "r-batch" is running
    And queue "research" holds 16 GPUs
    And "late" is admitted
    And "late" is pending because queue "research" is overused

  Scenario: A queue is not served past its share while another queue waits for room it could use
    # Volcano's allocate test "two Jobs on one node": each queue gets its half at once, and nothing has to be
    # reclaimed later.
    Given queue "research" with weight 1
    And queue "product" with weight 1
    And tenant R submits a job "r-elastic" of 32 pods with 1 GPU each in queue "research", needing at least 1 pod
    And tenant P submits a job "p-elastic" of 32 pods with 1 GPU each in queue "product", needing at least 1 pod
    Then 16 pods of "r-elastic" are running
    And 16 pods of "p-elastic" are running
    And nothing was evicted

  Scenario: A queue borrows what no waiting queue could use
    Given queue "research" with weight 1
    And queue "product" with weight 1
    And tenant R submits a job "r-elastic" of 32 pods with 1 GPU each in queue "research", needing at least 1 pod
    And tenant P submits a pod "p-huge" with 16 GPUs in queue "product"
    Then 32 pods of "r-elastic" are running
    And "p-huge" is pending

  Scenario: Child queues share what their parent deserves, by their own weights
    Given queue "research" with weight 1
    And queue "product" with weight 1
    And queue "nlp" with weight 3 under "research"
    And queue "vision" with weight 1 under "research"
    And tenant N submits 32 jobs "nlp-batch" of 1 GPU each in queue "nlp"
    And tenant V submits 32 jobs "vision-batch" of 1 GPU each in queue "vision"
    And tenant P submits 32 jobs "p-batch" of 1 GPU each in queue "product"
    Then queue "research" deserves 16 GPUs
    And queue "nlp" deserves 12 GPUs
    And queue "vision" deserves 4 GPUs
    And queue "nlp" holds 12 GPUs
    And queue "product" holds 16 GPUs

  # Queues take turns at admission, so one child's backlog cannot take its parent's whole admission room.
  Scenario: A child queue gets its share even when its sibling has many jobs waiting
    Given queue "research" with weight 1
    And queue "product" with weight 1
    And queue "nlp" with weight 3 under "research"
    And queue "vision" with weight 1 under "research"
    And tenant N submits 32 jobs "nlp-batch" of 1 GPU each in queue "nlp"
    And tenant V submits 32 jobs "vision-batch" of 1 GPU each in queue "vision"
    And tenant P submits 32 jobs "p-batch" of 1 GPU each in queue "product"
    Then queue "vision" holds 4 GPUs
    And 0 GPUs are idle
