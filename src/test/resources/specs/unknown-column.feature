Feature: A table column Arbiter does not know
  Scenario: A misspelt column
    Given the queues:
      | queue | wieght |
      | a     | 3      |
    Then nothing was evicted
