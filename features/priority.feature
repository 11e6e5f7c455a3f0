Feature: Priority classes: which job goes first
  A job takes the value of its PriorityClass; a job that names none takes the cluster's default class, and a job
  that names a class that does not exist, or names none in a cluster without a default, has priority zero. When two
  jobs compete for the last free node, the one with the higher priority gets it; equal priorities go in creation
  order.

  Background:
    Given a cluster of 1 node with 8 GPUs each

  Scenario: The job with the higher priority class gets the only free node, though it came second
    Given priority classes low 10, high 1000
    And tenant A submits a job "first" of 1 pod with 8 GPUs each at low
    And tenant A submits a job "second" of 1 pod with 8 GPUs each at high
    Then "second" is running
    And "first" is pending

  Scenario: A job without a priority class takes the cluster's default class
    Given priority classes low 10, mid 100 (default), high 1000
    And tenant A submits a job "first" of 1 pod with 8 GPUs each at low
    And tenant A submits a job "second" of 1 pod with 8 GPUs each
    Then "second" is running
    And "first" is pending

  Scenario: A job naming a priority class that does not exist has priority zero
    Given priority class low 10
    And tenant A submits a job "first" of 1 pod with 8 GPUs each at no-such-class
    And tenant A submits a job "second" of 1 pod with 8 GPUs each at low
    Then "second" is running
    And "first" is pending

  Scenario: In a cluster without a default class, a job without a class has priority zero
    Given priority class low 10
    And tenant A submits a job "first" of 1 pod with 8 GPUs each
    And tenant A submits a job "second" of 1 pod with 8 GPUs each at low
    Then "second" is running
    And "first" is pending

  Scenario: Equal priorities go in creation order
    Given priority classes high 1000
    And tenant A submits a job "first" of 1 pod with 8 GPUs each at high
    And tenant A submits a job "second" of 1 pod with 8 GPUs each at high
    Then "first" is running
    And "second" is pending
