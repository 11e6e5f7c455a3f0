# The capacity pack shares by each queue's spec.deserved, which these queues do not set: not this feature.
@differs-in-capacity
Feature: Lending limits: a queue lends at most so much of its share
  Kueue's lendingLimit, on a Volcano Queue: the annotation arbiter.dev/lending-limit says how much of its fair share
  a queue lends to other queues. The rest of the share it would deserve were every queue busy is kept for it: no other
  queue deserves it or grows into it, so it stays idle until its owner needs it; and if another queue holds it anyway
  (it ran there before the limit was set), the owner takes it back at once, without waiting for the minimum runtime.
  A queue without the annotation lends all it does not use, as Volcano's proportion policy does.

  Background:
    Given a cluster of 4 nodes with 8 GPUs each

  Scenario: A lender keeps the rest of its share idle for itself, and starts on it at once
    Queue "a" deserves 16 GPUs when both queues are busy and lends at most 4 of them: it keeps 12.
    Given queue "a" with weight 1 that lends at most 4 GPUs
    And queue "b" with weight 1
    When tenant B submits 32 jobs "b-batch" of 1 GPU each in queue "b"
    Then queue "b" holds 20 GPUs
    And queue "b" deserves 20 GPUs
    And 12 GPUs are idle
    When tenant A submits 12 jobs "a-batch" of 1 GPU each in queue "a"
    Then "a-batch" is running
    And nothing was evicted
    And queue "a" holds 12 GPUs

  Scenario: Without a lending limit the other queue borrows everything and the owner waits for reclaim
    Given queue "a" with weight 1
    And queue "b" with weight 1
    When tenant B submits 32 jobs "b-batch" of 1 GPU each in queue "b"
    Then queue "b" holds 32 GPUs
    And 0 GPUs are idle
    When tenant A submits 12 jobs "a-batch" of 1 GPU each in queue "a"
    Then "a-batch" is pending
    And nothing was evicted

  Scenario: A lender takes back the room it keeps at once, before the borrower's minimum runtime
    Tenant B's pods were bound to all 32 GPUs before queue "a" had its limit (they run on "a"'s kept share): they
    are reclaimed without waiting for the minute.
    Given queue "a" with weight 1 that lends at most 4 GPUs
    And queue "b" with weight 1
    And the manifests:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: b-early-1, namespace: tenantb, annotations: {scheduling.volcano.sh/queue-name: b}}
      spec:
        schedulerName: volcano
        nodeName: node-1
        containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 8}, limits: {nvidia.com/gpu: 8}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: b-early-2, namespace: tenantb, annotations: {scheduling.volcano.sh/queue-name: b}}
      spec:
        schedulerName: volcano
        nodeName: node-2
        containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 8}, limits: {nvidia.com/gpu: 8}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: b-early-3, namespace: tenantb, annotations: {scheduling.volcano.sh/queue-name: b}}
      spec:
        schedulerName: volcano
        nodeName: node-3
        containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 8}, limits: {nvidia.com/gpu: 8}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: b-early-4, namespace: tenantb, annotations: {scheduling.volcano.sh/queue-name: b}}
      spec:
        schedulerName: volcano
        nodeName: node-4
        containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 8}, limits: {nvidia.com/gpu: 8}}}]
      status: {phase: Running}
      """
    When tenant A submits a job "a-train" of 1 pod with 8 GPUs each in queue "a"
    Then "a-train" is running
    And only 1 pod was evicted
    And every pod evicted by reclaim ran within one kubernetes.io/hostname

  Scenario: Without a lending limit the owner waits for the borrower's minimum runtime
    Given queue "a" with weight 1
    And queue "b" with weight 1
    And the manifests:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: b-early-1, namespace: tenantb, annotations: {scheduling.volcano.sh/queue-name: b}}
      spec:
        schedulerName: volcano
        nodeName: node-1
        containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 8}, limits: {nvidia.com/gpu: 8}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: b-early-2, namespace: tenantb, annotations: {scheduling.volcano.sh/queue-name: b}}
      spec:
        schedulerName: volcano
        nodeName: node-2
        containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 8}, limits: {nvidia.com/gpu: 8}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: b-early-3, namespace: tenantb, annotations: {scheduling.volcano.sh/queue-name: b}}
      spec:
        schedulerName: volcano
        nodeName: node-3
        containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 8}, limits: {nvidia.com/gpu: 8}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: b-early-4, namespace: tenantb, annotations: {scheduling.volcano.sh/queue-name: b}}
      spec:
        schedulerName: volcano
        nodeName: node-4
        containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 8}, limits: {nvidia.com/gpu: 8}}}]
      status: {phase: Running}
      """
    When tenant A submits a job "a-train" of 1 pod with 8 GPUs each in queue "a"
    Then "a-train" is pending
    And nothing was evicted

  Scenario: A lending limit that does not read is a notice, and the queue lends without limit
    Given queue "a" with weight 1 and the lending limit "GPU=lots"
    And queue "b" with weight 1
    When tenant B submits 32 jobs "b-batch" of 1 GPU each in queue "b"
    Then queue "b" holds 32 GPUs
    And reading the manifests gave a notice containing "arbiter.dev/lending-limit"
