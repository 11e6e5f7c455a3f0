package dev.arbiter.live;

import dev.arbiter.model.EvictionRefusal;
import dev.arbiter.model.PodSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The victims whose eviction the API server refused, one entry per pod, owned by the actuator (the only room that
 * sees the answers): each refusal in a row passes the pod over for twice as long as the last, {@link #FIRST} doubling
 * up to {@link #MAX}; the scheduling loop hands the entries still running to the next cycle's snapshot
 * ({@link dev.arbiter.model.ClusterSnapshot#refusedVictims}), whose victim search then takes other victims. An entry is
 * forgotten when an eviction of the pod is accepted, when the pod is gone or is another pod (uid) or has other labels
 * (a PodDisruptionBudget selects by label), and once it has been over for as long as the longest backoff.
 *
 * <p>Example: refused at 0 s, passed over until 5 s; refused again at 5 s, until 15 s; then 35 s, 75 s, ... 5 min.
 */
final class EvictionRefusals {
    static final Duration FIRST = Duration.ofSeconds(5);
    static final Duration MAX = Duration.ofMinutes(5);

    /** One pod's refusals in a row: who it was (uid, labels), the last answer, and until when it is passed over. */
    private record Entry(String uid, Map<String, String> labels, int refusals, int code, String message,
                         long backoffNanos, long untilNanos) {}

    private final Map<String, Entry> byPod = new ConcurrentHashMap<>();
    private volatile LongSupplier clock = System::nanoTime;

    /** Tests move time themselves (nanoseconds, as {@link System#nanoTime}). */
    void useClock(LongSupplier nanos) {
        clock = nanos;
    }

    /** The eviction of {@code pod} ({@code uid}, {@code labels} as the cache shows it) was refused with {@code o}. */
    void refused(String pod, String uid, Map<String, String> labels, ApiOutcome o) {
        long now = clock.getAsLong();
        byPod.compute(pod, (k, last) -> {
            boolean same = last != null && Objects.equals(last.uid(), uid) && Objects.equals(last.labels(), labels);
            int refusals = same ? last.refusals() + 1 : 1;
            long backoff = backoff(refusals);
            return new Entry(uid, labels, refusals, o.code(), o.message(), backoff, now + backoff);
        });
    }

    /** An eviction of {@code pod} was accepted (or found it gone): its refusals are forgotten. */
    void accepted(String pod) {
        byPod.remove(pod);
    }

    /** {@link #FIRST} × 2^(refusals − 1), at most {@link #MAX}. */
    static long backoff(int refusals) {
        return Backoff.doubling(FIRST, MAX, refusals);
    }

    /**
     * The pods to pass over now, by key: those whose backoff runs and that are still the pod that was refused
     * ({@code pods}: the cache's record of a key, null when gone; {@code uids}: its uid). Forgets entries of pods gone
     * or changed, and entries over for longer than {@link #MAX}.
     */
    Map<String, EvictionRefusal> active(Function<String, PodSpec> pods, Function<String, String> uids) {
        if (byPod.isEmpty()) return Map.of();
        long now = clock.getAsLong();
        Map<String, EvictionRefusal> out = new HashMap<>();
        for (Iterator<Map.Entry<String, Entry>> it = byPod.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Entry> e = it.next();
            Entry r = e.getValue();
            PodSpec p = pods.apply(e.getKey());
            if (p == null || p.terminating() || !Objects.equals(uids.apply(e.getKey()), r.uid())
                    || !Objects.equals(p.labels(), r.labels()) || now - r.untilNanos() > MAX.toNanos()) {
                it.remove();
                continue;
            }
            if (now - r.untilNanos() < 0) {
                out.put(e.getKey(), new EvictionRefusal(r.code(), r.message(), Duration.ofNanos(r.backoffNanos()).toSeconds()));
            }
        }
        return out;
    }

    /** Pods whose refusals are remembered now (some may have run out their backoff). */
    int size() {
        return byPod.size();
    }
}
