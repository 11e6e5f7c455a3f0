package dev.arbiter.live;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * What the actuator has asked the API server to do but the informers have not shown yet: pods a binding was issued
 * for (assumed on their node) and pods an eviction was issued for (assumed leaving). The snapshot overlays both, so a
 * cycle never double-books a node while the API catches up, and never evicts the same victim twice.
 *
 * <p>An entry ends when the informer confirms it ({@link #confirmBound}, {@link #podGone}), when the actuator
 * {@linkplain #forget forgets} it after a failed call, or when it expires: an assumption the cluster never confirmed
 * within {@code ttl} is dropped so the pod is scheduled again. Thread-safe.
 */
public final class AssumeCache {
    private record Entry(String node, long expiresAtNanos) {}

    private final Map<String, Entry> bindings = new ConcurrentHashMap<>();
    private final Map<String, Long> evictions = new ConcurrentHashMap<>();
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
    public void assume(String pod, String node) {
        bindings.put(pod, new Entry(node, clock.getAsLong() + ttlNanos));
    }

    /** The binding failed: the pod is pending again and its node reservation is released. */
    public void forget(String pod) {
        bindings.remove(pod);
    }

    /** Records that an eviction of {@code pod} was accepted. */
    public void evicting(String pod) {
        evictions.put(pod, clock.getAsLong() + ttlNanos);
    }

    /** The informer shows the pod on a node: the assumption is confirmed and no longer needed. */
    public void confirmBound(String pod) {
        bindings.remove(pod);
    }

    /** The informer shows the pod terminating or deleted: nothing about it needs assuming any more. */
    public void podGone(String pod) {
        bindings.remove(pod);
        evictions.remove(pod);
    }

    /** The node {@code pod} is assumed bound to, or null (expired entries are dropped here). */
    public String assumedNode(String pod) {
        Entry e = bindings.get(pod);
        if (e == null) return null;
        if (clock.getAsLong() - e.expiresAtNanos() > 0) {
            bindings.remove(pod, e);
            return null;
        }
        return e.node();
    }

    /** True while an accepted eviction of {@code pod} has not shown in the informer (and has not expired). */
    public boolean isEvicting(String pod) {
        Long expires = evictions.get(pod);
        if (expires == null) return false;
        if (clock.getAsLong() - expires > 0) {
            evictions.remove(pod, expires);
            return false;
        }
        return true;
    }

    /** Number of bindings not yet confirmed. */
    public int assumedBindings() {
        return bindings.size();
    }

    /** Drops everything, e.g. when leadership is lost (the next leader starts from the informers alone). */
    public void clear() {
        bindings.clear();
        evictions.clear();
    }
}
