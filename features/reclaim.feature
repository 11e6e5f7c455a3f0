Feature: Reclaim: a queue takes back the share it lent
  An idle queue's share is lent to busy queues. When the lender needs it back, it reclaims from reclaimable queues
  that hold more than they deserve, one eviction at a time and only while the victim queue is still above its own
  deserved share. A queue that is not reclaimable keeps what it has borrowed. Reclaim is about shares, not
  priorities: the lender takes back its share whatever the priorities involved. (Reclaim spares pods that have run
  less than a minute, see churn.feature, so in these stories the borrowers have been running for a while.)

  Background:
    Given a cluster of 4 nodes with 8 GPUs each
    And priority classes p0-critical 1000000, p2-regular 100 (default)

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set, not by weight.
  @differs-in-capacity
  Scenario: A queue below its share takes back what it lent
    Given queue "a" with weight 1 that is reclaimable
    And queue "b" with weight 1 that is reclaimable
    And tenant B runs 4 jobs "b-batch" of 8 GPUs each in queue "b"
    And a minute passes
    When tenant A submits a job "a-train" of 2 pods with 8 GPUs each in queue "a"
    Then "a-train" is running
    And 2 pods of "b-batch" were evicted by reclaim
    And queue "a" holds 16 GPUs
    And queue "b" holds 16 GPUs

  Scenario: A queue that is not reclaimable keeps what it borrowed
    Given queue "a" with weight 1
    And queue "b" with weight 1 that is not reclaimable
    And tenant B runs 4 jobs "b-batch" of 8 GPUs each in queue "b"
    And a minute passes
    When tenant A submits a job "a-train" of 2 pods with 8 GPUs each in queue "a"
    Then "a-train" is pending
    And nothing was evicted
    And queue "b" holds 32 GPUs

  Scenario: Reclaim never takes a queue below its deserved share
    Tenant A asks for 24 GPUs but deserves 16; taking the third node would leave queue "b" below its 16, so tenant A's
    gang of three waits and nothing is evicted.
    Given queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs 4 jobs "b-batch" of 8 GPUs each in queue "b"
    And a minute passes
    When tenant A submits a job "a-train" of 3 pods with 8 GPUs each in queue "a"
    Then "a-train" is pending
    And nothing was evicted
    And queue "b" holds 32 GPUs

  @differs-in-capacity
  Scenario: Only queues above their share give back
    Given queue "a" with weight 1
    And queue "b" with weight 1
    And queue "c" with weight 1
    And tenant B runs a job "b-job" of 1 pod with 8 GPUs each in queue "b"
    And tenant C runs 3 jobs "c-batch" of 8 GPUs each in queue "c"
    And a minute passes
    When tenant A submits a job "a-job" of 1 pod with 8 GPUs each in queue "a"
    Then "a-job" is running
    And 1 pod of "c-batch" was evicted by reclaim
    And no pod of "b-job" was evicted
    And queue "c" holds 16 GPUs

  # @differs-in-protect-critical-inference: that pack never evicts p0-critical pods, which this scenario reclaims.
  @differs-in-capacity @differs-in-protect-critical-inference
  Scenario: Reclaim is about shares, not priorities
    Tenant B's critical jobs borrowed tenant A's half; tenant A's regular job still takes it back.
    Given queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs 4 jobs "b-critical" of 8 GPUs each at p0-critical in queue "b"
    And a minute passes
    When tenant A submits a job "a-regular" of 1 pod with 8 GPUs each at p2-regular in queue "a"
    Then "a-regular" is running
    And 1 pod of "b-critical" was evicted by reclaim

  Scenario: Pods marked not preemptable are not reclaimed either
    Given queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs 4 jobs "b-steady" of 8 GPUs each in queue "b", not preemptable
    And a minute passes
    When tenant A submits a job "a-train" of 1 pod with 8 GPUs each in queue "a"
    Then "a-train" is pending
    And nothing was evicted

  Scenario: A job whose pods never preempt does not reclaim either
    Given queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs 4 jobs "b-batch" of 8 GPUs each in queue "b"
    And a minute passes
    When tenant A submits a job "a-polite" of 1 pod with 8 GPUs each in queue "a", never preempting
    Then "a-polite" is pending
    And nothing was evicted

  @differs-in-capacity
  Scenario: A queue with a waiting pod still gives back what it borrowed
    Given queue "tenanta" with weight 1
    And queue "tenantb" with weight 1
    And tenant B runs a PyTorchJob "heavy" with 1 master and 4 workers of 8 GPUs each in queue "tenantb", needing at least 2 pods
    And a minute passes
    When tenant A submits a LeaderWorkerSet "qwen2-72b" of size 2 with 8 GPUs per pod at p0-critical in queue "tenanta"
    Then "qwen2-72b" is running
    And 2 pods of "heavy" were evicted by reclaim
    And "heavy" is running

  @differs-in-capacity
  Scenario: A queue gives back the GPUs it holds beyond its share, even when its own waiting pod raises its other shares
    Queue "a" deserves 24 of the 32 GPUs and holds all 32. Its waiting pod also asks for 16 CPUs, which lifts a's
    deserved CPUs above the CPUs it holds. That must not shield the GPUs it borrowed: queue "b" deserves 8 GPUs and
    takes them back (Volcano's rule: a queue may be reclaimed from while it holds more than its share of anything).
    Given queue "a" with weight 3
    And queue "b" with weight 1
    And the manifests:
      """
      apiVersion: v1
      kind: List
      items:
      - {apiVersion: v1, kind: Pod, metadata: {name: a-run-1, namespace: tenanta, annotations: {scheduling.volcano.sh/queue-name: a}},
         spec: {schedulerName: volcano, nodeName: node-1, containers: [{name: main, resources: {requests: {cpu: "1", nvidia.com/gpu: "8"}}}]}}
      - {apiVersion: v1, kind: Pod, metadata: {name: a-run-2, namespace: tenanta, annotations: {scheduling.volcano.sh/queue-name: a}},
         spec: {schedulerName: volcano, nodeName: node-2, containers: [{name: main, resources: {requests: {cpu: "1", nvidia.com/gpu: "8"}}}]}}
      - {apiVersion: v1, kind: Pod, metadata: {name: a-run-3, namespace: tenanta, annotations: {scheduling.volcano.sh/queue-name: a}},
         spec: {schedulerName: volcano, nodeName: node-3, containers: [{name: main, resources: {requests: {cpu: "1", nvidia.com/gpu: "8"}}}]}}
      - {apiVersion: v1, kind: Pod, metadata: {name: a-run-4, namespace: tenanta, annotations: {scheduling.volcano.sh/queue-name: a}},
         spec: {schedulerName: volcano, nodeName: node-4, containers: [{name: main, resources: {requests: {cpu: "1", nvidia.com/gpu: "8"}}}]}}
      - {apiVersion: v1, kind: Pod, metadata: {name: a-wait, namespace: tenanta, annotations: {scheduling.volcano.sh/queue-name: a}},
         spec: {schedulerName: volcano, containers: [{name: main, resources: {requests: {cpu: "16", nvidia.com/gpu: "8"}}}]}}
      """
    And a minute passes
    When tenant B submits a job "b-train" of 1 pod with 8 GPUs each in queue "b"
    Then "b-train" is running
    And only 1 pod was evicted
    And queue "b" holds 8 GPUs
    And queue "a" holds 24 GPUs
