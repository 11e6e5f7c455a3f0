Feature: A clause Arbiter does not know
  Scenario: A made-up clause
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant A submits a job "train" of 2 pods with 8 GPUs each, very urgent
    Then "train" is running
