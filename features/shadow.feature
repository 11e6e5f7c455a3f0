Feature: Try a candidate policy on the live cluster without acting on it
  `arbiter run --shadow-rules DIR` evaluates a candidate policy on every cycle beside the active one, on the same
  snapshot of the cluster, and acts only on the active one. What the candidate would have decided differently (pods
  bound elsewhere or not at all, evictions, job phases, queue shares) is reported with the rules behind each
  decision, so a platform team sees what a policy change would do before it makes it. A candidate that fails never
  changes what the active policy does.

  Background:
    Given a cluster of 1 node with 8 GPUs each
    And queue "research" that deserves 6 GPUs
    And queue "product" that deserves 2 GPUs

  @differs-in-capacity
  Scenario: A candidate that divides the GPUs otherwise is reported with its rules, and nothing it decides happens
    The active policy divides the GPUs by weight (4 and 4); the capacity pack would give each queue what it says it
    deserves (6 and 2). The cluster ends as the active policy decided.
    Given the shadow policy pack "deploy/policies/capacity"
    When tenant R submits 6 jobs "r-batch" of 1 GPU each in queue "research"
    And tenant P submits 6 jobs "p-batch" of 1 GPU each in queue "product"
    Then queue "research" holds 4 GPUs
    And queue "product" holds 4 GPUs
    And the shadow policy would have bound 2 pods of "r-batch" that the active policy left pending
    And the shadow policy would have left 2 pods of "p-batch" pending that the active policy bound
    And the shadow policy would give queue "research" a deserved share of 6 GPUs
    And the shadow policy's differences name the rule "gang: a job starts only when minMember of its tasks can run together"
    And the active policy's outcome is the same as without a shadow policy

  Scenario: A candidate whose rule fails leaves the active policy's outcome as it is
    Given a shadow policy whose rule "broken candidate" fails on every cycle
    When tenant R submits 6 jobs "r-batch" of 1 GPU each in queue "research"
    And tenant P submits 6 jobs "p-batch" of 1 GPU each in queue "product"
    Then every cycle of the shadow policy failed naming the rule "broken candidate"
    And the active policy's outcome is the same as without a shadow policy
