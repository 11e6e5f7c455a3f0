package dev.arbiter.decision;

import java.util.List;

/**
 * Nodes reserved for a queue's long-waiting head job ({@code reservation} in policy.yaml): {@code nodes} would hold
 * its gang from {@code start} (seconds on the snapshot's clock: epoch seconds live, from 0 in the simulator), once the
 * running pods there end as their runtime estimates say. Other work may use them only if its own estimate ends by
 * {@code start} (backfill). {@code rule} granted it. The reservation holds from cycle to cycle until the job starts,
 * leaves, is no longer its queue's head, or the policy stops granting it. {@code backfilled}: how many pods of other
 * jobs the cycle bound on its nodes.
 */
public record Reservation(String job, String queue, List<String> nodes, long start, String rule, int backfilled) {
    public Reservation {
        nodes = List.copyOf(nodes);
    }
}
