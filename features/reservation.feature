Feature: Reservation and backfill: a big gang is not starved by a stream of small jobs
  A 32-GPU gang needs every GPU of the cluster at once. Small jobs keep arriving and each takes the GPUs that come
  free, so under the shipped policy the gang waits until the stream stops. With reservation on (reservation.after in
  policy.yaml; off by default), a queue's head job that has waited long enough reserves the nodes that would start it
  soonest, as the running jobs' runtime estimates say; other work may still use those nodes if its own estimate ends
  before the reservation starts (backfill), and work without an estimate may not. The reservation is dropped when the
  gang starts.

  Background:
    Given a cluster of 4 nodes with 8 GPUs each
    And tenant B submits 60 jobs "small" of 2 GPUs each, one every minute, each running 15 minutes, estimated at 15 minutes
    And tenant A submits a job "big" of 4 pods with 8 GPUs each, arriving after 5 minutes, each running 30 minutes, estimated at 30 minutes

  # @differs-in-reservation: that pack turns reservation on, so the gang starts while the small jobs still come.
  @differs-in-reservation
  Scenario: Without reservation the gang waits until the small jobs stop coming
    Then "big" did not start within 50 minutes of arriving
    And "big" started within 90 minutes of arriving

  Scenario: With reservation the gang reserves the cluster after waiting 10 minutes, starts, and the reservation is dropped
    Given the scenario sets reservation.after in policy.yaml to "10m"
    Then "big" started within 30 minutes of arriving
    And "big" reserved 4 nodes
    And no reservation is held

  Scenario: Work whose estimate ends before the reservation backfills it; work without an estimate does not
    Given the scenario sets reservation.after in policy.yaml to "10m"
    And tenant C submits 10 jobs "quick" of 2 GPUs each, one every minute, arriving after 16 minutes, each running 3 minutes, estimated at 5 minutes
    And tenant C submits 10 jobs "unsure" of 2 GPUs each, one every minute, arriving after 16 minutes, each running 3 minutes
    Then "quick" ran on a node reserved for "big"
    And "unsure" never ran on a node reserved for "big"
    And "big" started within 30 minutes of arriving

  Scenario: With backfill off nothing else runs on the reserved nodes
    Given the scenario sets reservation.after in policy.yaml to "10m"
    And the scenario sets reservation.backfill in policy.yaml to "false"
    And tenant C submits 10 jobs "quick" of 2 GPUs each, one every minute, arriving after 16 minutes, each running 3 minutes, estimated at 5 minutes
    Then "quick" never ran on a node reserved for "big"
    And "big" started within 30 minutes of arriving
