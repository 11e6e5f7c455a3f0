Feature: The seed story: critical inference takes back GPUs lent to elastic training
  Two tenants share a small GPU cluster through Volcano queues of equal weight, so each deserves half of it. While
  tenant A is idle, tenant B may borrow A's half. When tenant A's critical inference service arrives, the scheduler
  takes the borrowed half back from B's elastic training: workers first, the master last. It then starts A's two
  pods together. Nobody's gang is left half-placed, and the cluster ends up split 16/16.
  (The same story as manifests: deploy/examples/seed.)

  Background: Two tenants, four nodes of eight GPUs, three priority tiers
    Given GPUs are "mars-tech.com/gpu"
    And a cluster of 4 nodes with 8 GPUs each
    And priority classes p0-critical 1000000, p1-high 10000, p2-regular 100 (default)
    And queue "tenanta" with weight 1 that is reclaimable
    And queue "tenantb" with weight 1 that is reclaimable

  Scenario: Tenant B borrows the whole cluster while tenant A is idle
    Tenant B trains a large model on 4 replicas of 8 GPUs: all 32 GPUs, half of them borrowed from tenant A's idle
    queue. The job is elastic: it keeps training as long as 1 of its 4 replicas runs.
    Given tenant B runs a PyTorchJob "heavy" with 1 master and 3 workers of 8 GPUs each at p2-regular in queue "tenantb", needing at least 1 pod
    Then 4 pods of "heavy" are running
    And queue "tenantb" holds 32 GPUs
    And queue "tenanta" holds 0 GPUs
    And nothing was evicted

  # @differs-in-capacity: the capacity pack shares by spec.deserved, which these queues do not set, not by weight.
  @differs-in-capacity
  Scenario: Tenant A's critical inference reclaims its half from tenant B's elastic training
    Five minutes later, tenant A's Qwen2-72B service arrives: a leader and a worker of 8 GPUs each, one gang, at critical
    priority. No GPU is free. Tenant A is entitled to 16 GPUs, and tenant B holds 16 of A's share. B's job can lose
    replicas without breaking, so two workers go and the master stays. Both of A's pods then start together on the
    freed nodes.
    Given tenant B runs a PyTorchJob "heavy" with 1 master and 3 workers of 8 GPUs each at p2-regular in queue "tenantb", needing at least 1 pod
    And 5 minutes pass
    When tenant A submits a LeaderWorkerSet "qwen2-72b" of size 2 with 8 GPUs per pod at p0-critical in queue "tenanta"
    Then 2 pods of "heavy" were evicted by reclaim
    And the master of "heavy" is still running
    And "heavy" is running
    And "qwen2-72b" is running
    And 2 pods of "qwen2-72b" are running
    And the leader of "qwen2-72b" is running
    And queue "tenanta" holds 16 GPUs
    And queue "tenantb" holds 16 GPUs
    And 0 GPUs are idle

  @differs-in-capacity
  Scenario: Training that cannot shrink gives back the whole cluster, then waits for room to start again
    Tenant B's PyTorchJob sets no minAvailable: it needs all 4 of its pods and cannot give back half. Once it has run
    its minute, tenant A still gets its 16 GPUs. B's whole gang goes, because what would come back needs 32 GPUs,
    twice B's share, so it could never take them straight back. The training operator recreates B's pods; they wait,
    and B's reason says why.
    Given evicted pods come back, as their controllers recreate them
    And tenant B runs a PyTorchJob "heavy" with 1 master and 3 workers of 8 GPUs each at p2-regular in queue "tenantb"
    And a minute passes
    When tenant A submits a LeaderWorkerSet "qwen2-72b" of size 2 with 8 GPUs per pod at p0-critical in queue "tenanta"
    Then every pod of "heavy" was evicted by reclaim
    And "qwen2-72b" is running
    And queue "tenanta" holds 16 GPUs
    And "heavy" is pending because the gang needs mars-tech.com/gpu 32 to start, but queue "tenantb" deserves mars-tech.com/gpu 16
    And 16 GPUs are idle
