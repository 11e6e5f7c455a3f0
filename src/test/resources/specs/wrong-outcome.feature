Feature: An outcome that does not happen
  Scenario: A gang bigger than the free room is said to run
    Given a cluster of 2 nodes with 8 GPUs each
    And queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs a pod "resident" with 8 GPUs in queue "b"
    When tenant A submits a job "train" of 2 pods with 8 GPUs each in queue "a"
    Then "train" is running
