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

  Scenario: A queue with a lending limit lends at most that much of its deserved share
    Kueue's lendingLimit: "inference" keeps 16 - 4 = 12 GPUs idle for itself; "research" borrows the other 4.
    Given queue "inference" that deserves 16 GPUs and lends at most 4
    And queue "research" that deserves 16 GPUs and may borrow up to 32
    When tenant R submits 32 jobs "r-batch" of 1 GPU each in queue "research"
    Then queue "research" holds 20 GPUs
    And 12 GPUs are idle
    When tenant I submits 12 jobs "i-serve" of 1 GPU each in queue "inference"
    Then "i-serve" is running
    And nothing was evicted

  Scenario: Without a lending limit a queue lends all of its deserved share it does not use
    Given queue "inference" that deserves 16 GPUs
    And queue "research" that deserves 16 GPUs and may borrow up to 32
    When tenant R submits 32 jobs "r-batch" of 1 GPU each in queue "research"
    Then queue "research" holds 32 GPUs
    And 0 GPUs are idle

  Scenario: A queue below its share takes back down to the lender's deserved share
    Given queue "lender" that deserves 8 GPUs
    And queue "owner" that deserves 24 GPUs
    And tenant L runs 4 jobs "l-batch" of 8 GPUs each in queue "lender"
    And a minute passes
    When tenant O submits 3 jobs "o-batch" of 8 GPUs each in queue "owner"
    Then 3 pods of "l-batch" were evicted by reclaim
    And queue "lender" holds 8 GPUs
    And queue "owner" holds 24 GPUs

  Scenario: A queue over its share in one resource still reclaims in another the job asks for
    Volcano's capacity plugin lets a queue reclaim for a job that fits under its deserved share in at least one
    resource it asks for (capacity_test.go, "allocated + req <= deserved on one dimension"): "train" holds 3Gi of its
    2Gi memory share but 1 of its 2 CPUs, and its new pod, which only the small node suits, asks for 1 CPU and 1Gi.
    The default policy (proportion) would ask for both.
    Given the nodes:
      | node    | GPUs | cpu | memory | labels     |
      | small-1 | 0    | 2   | 4Gi    | pool=small |
    And these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: Queue
      metadata: {name: train}
      spec: {reclaimable: true, deserved: {cpu: "2", memory: 2Gi}, capability: {cpu: "4", memory: 4Gi}}
      ---
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: Queue
      metadata: {name: spare}
      spec: {reclaimable: true, capability: {cpu: "2", memory: 2Gi}}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: prep, namespace: tenanta, annotations: {scheduling.volcano.sh/queue-name: train}}
      spec:
        schedulerName: volcano
        nodeName: small-1
        nodeSelector: {pool: small}
        containers: [{name: main, image: prep, resources: {requests: {cpu: "1", memory: 3Gi}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: borrow, namespace: tenantb, annotations: {scheduling.volcano.sh/queue-name: spare}}
      spec:
        schedulerName: volcano
        nodeName: small-1
        nodeSelector: {pool: small}
        containers: [{name: main, image: borrow, resources: {requests: {cpu: "1", memory: 1Gi}}}]
      status: {phase: Running}
      """
    And a minute passes
    When these manifests are applied:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: step, namespace: tenanta, annotations: {scheduling.volcano.sh/queue-name: train}}
      spec:
        schedulerName: volcano
        nodeSelector: {pool: small}
        containers: [{name: main, image: step, resources: {requests: {cpu: "1", memory: 1Gi}}}]
      """
    Then "step" is running
    And only 1 pod was evicted

  Scenario: A queue over its share in every resource the job asks for does not reclaim
    (capacity_test.go, "Cannot reclaim when allocated + req > deserved".)
    Given the nodes:
      | node    | GPUs | cpu | memory | labels     |
      | small-1 | 0    | 2   | 4Gi    | pool=small |
    And these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: Queue
      metadata: {name: train}
      spec: {reclaimable: true, deserved: {cpu: "1", memory: 2Gi}, capability: {cpu: "4", memory: 4Gi}}
      ---
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: Queue
      metadata: {name: spare}
      spec: {reclaimable: true, capability: {cpu: "2", memory: 2Gi}}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: prep, namespace: tenanta, annotations: {scheduling.volcano.sh/queue-name: train}}
      spec:
        schedulerName: volcano
        nodeName: small-1
        nodeSelector: {pool: small}
        containers: [{name: main, image: prep, resources: {requests: {cpu: "1", memory: 1Gi}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: borrow, namespace: tenantb, annotations: {scheduling.volcano.sh/queue-name: spare}}
      spec:
        schedulerName: volcano
        nodeName: small-1
        nodeSelector: {pool: small}
        containers: [{name: main, image: borrow, resources: {requests: {cpu: "1", memory: 1Gi}}}]
      status: {phase: Running}
      """
    And a minute passes
    When these manifests are applied:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: step, namespace: tenanta, annotations: {scheduling.volcano.sh/queue-name: train}}
      spec:
        schedulerName: volcano
        nodeSelector: {pool: small}
        containers: [{name: main, image: step, resources: {requests: {cpu: "1", memory: 2Gi}}}]
      """
    Then "step" is pending
    And nothing was evicted

  Scenario: A lender over its share gives back even if that leaves it below its share
    The capacity plugin has no floor: a queue's task is a victim while the queue holds more than it deserves in a
    resource the task asks for, so taking one job of 8 GPUs leaves "lender" at 8 of its 12. The default policy keeps
    a lender at its deserved share, and "o-batch"'s last job would wait.
    Given queue "lender" that deserves 12 GPUs
    And queue "owner" that deserves 20 GPUs
    And tenant L runs 2 jobs "l-batch" of 8 GPUs each in queue "lender"
    And a minute passes
    When tenant O submits 5 jobs "o-batch" of 4 GPUs each in queue "owner"
    Then 1 pod of "l-batch" was evicted by reclaim
    And queue "lender" holds 8 GPUs
    And queue "owner" holds 20 GPUs

  Scenario: A lender over its share keeps its whole guarantee
    The capacity plugin takes a victim only while its queue keeps its guarantee in every resource the guarantee
    names: "lender" deserves 4 GPUs but is guaranteed 16, so neither of its jobs goes.
    Given these manifests are applied:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: Queue
      metadata: {name: lender}
      spec: {reclaimable: true, deserved: {nvidia.com/gpu: "4"}, guarantee: {resource: {nvidia.com/gpu: "16"}}}
      """
    And queue "owner" that deserves 20 GPUs
    And tenant L runs 2 jobs "l-batch" of 8 GPUs each in queue "lender"
    And a minute passes
    When tenant O submits 5 jobs "o-batch" of 4 GPUs each in queue "owner"
    Then nothing was evicted
    And queue "lender" holds 16 GPUs
    And queue "owner" holds 16 GPUs
