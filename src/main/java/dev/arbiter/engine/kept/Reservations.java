package dev.arbiter.engine.kept;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a scheduler remembers of reservations from one cycle to the next ({@code reservation} in policy.yaml): when
 * each job not yet started was first seen waiting, and per queue the reservation its head job holds (its nodes and
 * start), so a reservation stays on the same nodes from cycle to cycle. One table, kept by the scheduler whatever else
 * it keeps (the simulator and the specs decide every cycle afresh, yet reserve across cycles); the cycle room's
 * reservation step reads and updates it, and releases an entry when its job starts, leaves, is no longer its queue's
 * head, or the policy grants its queue no reservation. Empty, and never touched, while the policy grants none.
 *
 * <p><b>Waiting since.</b> A job waits from the first cycle this table saw it waiting: in the simulator and the specs
 * its arrival (a cycle runs when anything arrives); live, the first cycle of this process (a restart, a leader change
 * or a policy reload starts the wait again: a reservation comes late, never early).
 */
public final class Reservations {
    /** A queue's reservation: for {@code job}, {@code nodes} (by name) from {@code start}, granted by {@code rule}. */
    public record Held(String job, String queue, List<String> nodes, long start, String rule) {
        public Held {
            nodes = List.copyOf(nodes);
        }
    }

    private final Map<String, Long> waitingSince = new HashMap<>();
    private final Map<String, Held> byQueue = new TreeMap<>();
    private long lastNow = Long.MIN_VALUE;

    /**
     * A cycle at {@code now} begins; a clock that went back (a new run on the same scheduler) forgets everything.
     */
    public void begin(long now) {
        if (now < lastNow) clear();
        lastNow = now;
    }

    /** Forgets everything (the policy grants no reservation). */
    public void clear() {
        waitingSince.clear();
        byQueue.clear();
    }

    /** Since when {@code job} waits: the first {@code now} this table saw it waiting. */
    public long waitingSince(String job, long now) {
        return waitingSince.computeIfAbsent(job, k -> now);
    }

    /** Forgets the jobs not in {@code waiting} (they started or left). */
    public void keepWaiting(Set<String> waiting) {
        waitingSince.keySet().retainAll(waiting);
    }

    /** The reservation {@code queue}'s head holds, or null. */
    public Held of(String queue) {
        return byQueue.get(queue);
    }

    public void hold(Held h) {
        byQueue.put(h.queue(), h);
    }

    public void release(String queue) {
        byQueue.remove(queue);
    }

    /** Every reservation held, by queue name. */
    public List<Held> all() {
        return new ArrayList<>(byQueue.values());
    }

    /** Whether the table holds nothing (no reservation, no waiting job). */
    public boolean isEmpty() {
        return byQueue.isEmpty() && waitingSince.isEmpty();
    }
}
