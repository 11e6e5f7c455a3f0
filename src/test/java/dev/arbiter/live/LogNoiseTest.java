package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Issue 34, item 12: the log says each outage once, with its cause. On the real API server a restart made Vert.x print
 * "WARN HttpClientConnection - Connection evicted", with no cause, once per pooled connection (eight in a row in
 * ControlPlaneRestartRealTest's log, beside the one Outages line per informer that names the server).
 */
class LogNoiseTest {
    @Test
    void vertxConnectionEvictionsAreNotLoggedAndOutagesAre() {
        assertFalse(LoggerFactory.getLogger("io.vertx.core.http.impl.HttpClientConnection").isWarnEnabled(),
                "\"Connection evicted\" would be logged");
        assertTrue(LoggerFactory.getLogger(Outages.class).isWarnEnabled(), "the outage line is logged");
        assertFalse(LoggerFactory.getLogger("io.fabric8.kubernetes.client.informers.impl.cache.Reflector").isWarnEnabled(),
                "fabric8's Reflector logs a stack trace per failed list");
    }
}
