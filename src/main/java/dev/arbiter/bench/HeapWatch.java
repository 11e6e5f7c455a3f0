package dev.arbiter.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The most heap that was still in use right after a garbage collection: the peak live heap, which is what a heap
 * limit has to hold. (The pools' peak usage, {@link Benchmark#peakHeapMiB}, also counts garbage not yet collected,
 * so it grows with the heap the JVM was given.) Every collection reports how much of each heap pool it left in use;
 * their sum after the largest is the peak.
 */
final class HeapWatch implements AutoCloseable {
    private final AtomicLong peak = new AtomicLong();
    private final AtomicLong collections = new AtomicLong();
    private final Set<String> heapPools = new HashSet<>();
    private final NotificationListener listener = (n, handback) -> {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) return;
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        long used = 0;
        for (Map.Entry<String, MemoryUsage> e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(e.getKey())) used += e.getValue().getUsed();
        }
        peak.accumulateAndGet(used, Math::max);
        synchronized (this) {
            collections.incrementAndGet();
            notifyAll();
        }
    };

    HeapWatch() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) heapPools.add(pool.getName());
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter e) e.addNotificationListener(listener, null, null);
        }
    }

    /** Forgets the peak seen so far. */
    void reset() {
        peak.set(0);
        collections.set(0);
    }

    /** The peak live heap since the last reset, in MiB; collections are reported asynchronously, so it waits briefly for the last one. */
    long peakLiveMiB() {
        long seen = collections.get();
        System.gc(); // one more collection: the live heap now counts too, and its report comes after the earlier ones
        long deadline = System.nanoTime() + 2_000_000_000L;
        synchronized (this) {
            while (collections.get() == seen && System.nanoTime() < deadline) {
                try {
                    wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        return peak.get() >> 20;
    }

    @Override
    public void close() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter e) {
                try {
                    e.removeNotificationListener(listener);
                } catch (javax.management.ListenerNotFoundException ignored) {
                    // never added
                }
            }
        }
    }
}
