package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AssumeCacheTest {
    private final AtomicLong now = new AtomicLong();
    private final AssumeCache cache = new AssumeCache(Duration.ofSeconds(30), now::get);

    @Test
    void anAssumedBindingHoldsUntilTheInformerConfirmsIt() {
        cache.assume("ns/p", "node-1");
        assertEquals("node-1", cache.assumedNode("ns/p"));
        cache.confirmBound("ns/p");
        assertNull(cache.assumedNode("ns/p"));
    }

    @Test
    void aForgottenBindingReleasesTheNodeAtOnce() {
        cache.assume("ns/p", "node-1");
        cache.forget("ns/p");
        assertNull(cache.assumedNode("ns/p"));
        assertEquals(0, cache.assumedBindings());
    }

    @Test
    void anAcceptedCallTheInformerNeverConfirmsExpires() {
        cache.assume("ns/p", "node-1");
        cache.evicting("ns/v");
        cache.bindingAccepted("ns/p");
        cache.evictionAccepted("ns/v");
        now.addAndGet(Duration.ofSeconds(29).toNanos());
        assertEquals("node-1", cache.assumedNode("ns/p"));
        assertTrue(cache.isEvicting("ns/v"));
        now.addAndGet(Duration.ofSeconds(2).toNanos());
        assertNull(cache.assumedNode("ns/p"));
        assertFalse(cache.isEvicting("ns/v"));
    }

    @Test
    void aCallStillInFlightNeverExpires() {
        cache.assume("ns/p", "node-1");
        cache.evicting("ns/v");
        now.addAndGet(Duration.ofMinutes(10).toNanos());
        assertEquals("node-1", cache.assumedNode("ns/p"), "a slow binding keeps its node: no double booking");
        assertTrue(cache.isEvicting("ns/v"));
    }

    @Test
    void aGangSettlesInOneStepThatNoViewSeesHalfOf() {
        cache.assume("ns/a", "node-1");
        cache.assume("ns/b", "node-2");
        cache.settleGang(java.util.List.of("ns/b"), java.util.List.of("ns/a"));
        AssumeCache.View v = cache.view();
        assertEquals(java.util.Map.of(), v.bindings());
        assertEquals(java.util.Set.of("ns/a"), v.evictions());
    }

    @Test
    void aDeletedPodNeedsNoAssumptionAtAll() {
        cache.assume("ns/p", "node-1");
        cache.evicting("ns/p");
        cache.podGone("ns/p");
        assertNull(cache.assumedNode("ns/p"));
        assertFalse(cache.isEvicting("ns/p"));
    }
}
