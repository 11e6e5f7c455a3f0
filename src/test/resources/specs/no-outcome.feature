Feature: A scenario that checks nothing
  Scenario: Setup without a Then
    Given a cluster of 2 nodes with 8 GPUs each
    And tenant A submits a job "train" of 2 pods with 8 GPUs each
