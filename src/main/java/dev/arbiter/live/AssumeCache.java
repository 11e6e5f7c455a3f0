package dev.arbiter.live;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What the actuator has asked the API server to do but the informers have not shown yet: pods a binding was issued
 * for (assumed on their node) and pods an eviction was issued for (assumed leaving). The snapshot overlays both, so a
 * cycle never double-books a node while the API catches up, and never evicts the same victim twice.
 *
 * <p>An entry is made when the call is issued, before it is sent (assume-then-bind). While the call is in flight the
 * entry does not expire; once the API server accepted it ({@link #bindingAccepted}, {@link #evictionAccepted}) the
 * informer has {@code ttl} to confirm it ({@link #confirmBound}, {@link #podGone}), after which the assumption is
 * dropped so the pod is scheduled again. A call that fails {@linkplain #forget forgets} its entry.
 *
 * <p>Thread-safe. Compound changes ({@link #settleGang}) and the {@link #view()} a snapshot takes are atomic with
 * respect to each other, so no snapshot sees half of a gang's rollback.
 */
public final class AssumeCache {
    private static final long IN_FLIGHT = Long.MAX_VALUE;

    private record Entry(String node, long expiresAtNanos) {}

    /** The assumptions one snapshot overlays: pod → assumed node, and pods assumed leaving. */
    public record View(Map<String, String> bindings, Set<String> evictions) {
        public boolean isEmpty() {
            return bindings.isEmpty() && evictions.isEmpty();
        }
    }

    private final Map<String, Entry> bindings = new HashMap<>();
    private final Map<String, Long> evictions = new HashMap<>();
    private final long ttlNanos;
    private final LongSupplier clock;

    public AssumeCache(Duration ttl) {
        this(ttl, System::nanoTime);
    }

    AssumeCache(Duration ttl, LongSupplier nanoClock) {
        this.ttlNanos = ttl.toNanos();
        this.clock = nanoClock;
    }

    /** Records that a binding of {@code pod} (namespace/name) to {@code node} is being issued. */
    public synchronized void assume(String pod, String node) {
        bindings.put(pod, new Entry(node, IN_FLIGHT));
    }

    /** The API server accepted the binding: the informer now has {@code ttl} to show it. */
    public synchronized void bindingAccepted(String pod) {
        Entry e = bindings.get(pod);
        if (e != null) bindings.put(pod, new Entry(e.node(), clock.getAsLong() + ttlNanos));
    }

    /** The binding failed: the pod is pending again and its node reservation is released. */
    public synchronized void forget(String pod) {
        bindings.remove(pod);
    }

    /** Records that an eviction of {@code pod} is being issued: it is shown leaving from now on. */
    public synchronized void evicting(String pod) {
        evictions.put(pod, IN_FLIGHT);
    }

    /** The API server accepted the eviction: the informer now has {@code ttl} to show the pod leaving. */
    public synchronized void evictionAccepted(String pod) {
        if (evictions.containsKey(pod)) evictions.put(pod, clock.getAsLong() + ttlNanos);
    }

    /** The eviction was refused or failed: the pod stays. */
    public synchronized void forgetEviction(String pod) {
        evictions.remove(pod);
    }

    /**
     * A gang's bindings have settled and some failed: in one step, the members that were not bound are pending again
     * and the members that were are shown leaving (their rollback evictions are about to be issued).
     */
    public synchronized void settleGang(Collection<String> notBound, Collection<String> rollingBack) {
        for (String p : notBound) bindings.remove(p);
        for (String p : rollingBack) {
            bindings.remove(p);
            evictions.put(p, IN_FLIGHT);
        }
    }

    /** The informer shows the pod on a node: the assumption is confirmed and no longer needed. */
    public synchronized void confirmBound(String pod) {
        bindings.remove(pod);
    }

    /** The informer shows the pod terminating or deleted: nothing about it needs assuming any more. */
    public synchronized void podGone(String pod) {
        bindings.remove(pod);
        evictions.remove(pod);
    }

    /** The node {@code pod} is assumed bound to, or null (expired entries are dropped here). */
    public synchronized String assumedNode(String pod) {
        Entry e = bindings.get(pod);
        if (e == null) return null;
        if (expired(e.expiresAtNanos())) {
            bindings.remove(pod);
            return null;
        }
        return e.node();
    }

    /** True while a binding of {@code pod} has been issued and not yet answered. */
    public synchronized boolean isBindingInFlight(String pod) {
        Entry e = bindings.get(pod);
        return e != null && e.expiresAtNanos() == IN_FLIGHT;
    }

    /**
     * True when the API server accepted a binding of {@code pod} that the informer does not show yet (and the wait for
     * it has not expired).
     */
    public synchronized boolean isBindingAccepted(String pod) {
        Entry e = bindings.get(pod);
        return e != null && e.expiresAtNanos() != IN_FLIGHT && !expired(e.expiresAtNanos());
    }

    /** True while an eviction of {@code pod} is in flight or accepted and not yet shown (and has not expired). */
    public synchronized boolean isEvicting(String pod) {
        Long expires = evictions.get(pod);
        if (expires == null) return false;
        if (expired(expires)) {
            evictions.remove(pod);
            return false;
        }
        return true;
    }

    /** Everything assumed now, expired entries dropped: what the next snapshot overlays. Costs O(assumptions). */
    public synchronized View view() {
        bindings.values().removeIf(e -> expired(e.expiresAtNanos()));
        evictions.values().removeIf(this::expired);
        Map<String, String> b = new HashMap<>(bindings.size() * 2);
        bindings.forEach((pod, e) -> b.put(pod, e.node()));
        return new View(b, Set.copyOf(evictions.keySet()));
    }

    private boolean expired(long expiresAtNanos) {
        return expiresAtNanos != IN_FLIGHT && clock.getAsLong() - expiresAtNanos > 0;
    }

    /** Number of bindings not yet confirmed. */
    public synchronized int assumedBindings() {
        return bindings.size();
    }

    /** Drops everything, e.g. when leadership is lost (the next leader starts from the informers alone). */
    public synchronized void clear() {
        bindings.clear();
        evictions.clear();
    }
}
