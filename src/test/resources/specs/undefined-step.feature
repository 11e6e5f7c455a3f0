Feature: A step nobody defined
  Scenario: A product owner's typo
    Given a cluster of 2 nodes with 8 GPUs each
    And a clsuter of 2 nodes
    Then nothing was evicted
