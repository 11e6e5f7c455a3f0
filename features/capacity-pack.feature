Feature: The capacity policy pack: shares set per queue, borrowing up to a capability
  deploy/policies/capacity implements Volcano's capacity plugin with the same rule files as the default pack but
  one: each queue's deserved share is what its spec.deserved says, not what weights compute. A queue may borrow idle
  GPUs up to its capability, and gives back down to its deserved share when a queue below its own needs them.

  Background:
    Given the policy pack "deploy/policies/capacity"
    And a cluster of 4 nodes with 8 GPUs each

  Scenario: Shares are what each queue says, whatever the weights
    Given queue "research" that deserves 24 GPUs
    And queue "product" that deserves 8 GPUs
    When tenant R submits 32 jobs "r-batch" of 1 GPU each in queue "research"
    And tenant P submits 32 jobs "p-batch" of 1 GPU each in queue "product"
    Then queue "research" deserves 24 GPUs
    And queue "product" deserves 8 GPUs
    And queue "research" holds 24 GPUs
    And queue "product" holds 8 GPUs

  Scenario: A queue borrows idle GPUs up to its capability, not past it
    Given queue "research" that deserves 8 GPUs and may borrow up to 24
    When tenant R submits 4 jobs "r-train" of 8 GPUs each in queue "research"
    Then queue "research" holds 24 GPUs
    And 8 GPUs are idle

  Scenario: A queue below its share takes back down to the lender's deserved share
    Given queue "lender" that deserves 8 GPUs
    And queue "owner" that deserves 24 GPUs
    And tenant L runs 4 jobs "l-batch" of 8 GPUs each in queue "lender"
    And a minute passes
    When tenant O submits 3 jobs "o-batch" of 8 GPUs each in queue "owner"
    Then 3 pods of "l-batch" were evicted by reclaim
    And queue "lender" holds 8 GPUs
    And queue "owner" holds 24 GPUs
