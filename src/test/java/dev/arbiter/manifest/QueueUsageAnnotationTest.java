package dev.arbiter.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.QueueUsage;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A Queue's stored past usage ({@value QueueUsage#ANNOTATION}) as the simulator reads it: read, or one notice. */
class QueueUsageAnnotationTest {
    private static Manifests queue(String annotation) {
        return ManifestLoader.parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata:
                  name: research
                  annotations: {arbiter.dev/usage: "%s"}
                spec: {weight: 1}
                """.formatted(annotation), "q.yaml");
    }

    @Test
    void aQueueCarriesItsStoredUsage() {
        Manifests m = queue("1970-01-01T00:01:00Z nvidia.com/gpu=16 cpu=2.5");
        assertEquals(Map.of("research", new QueueUsage(Map.of("nvidia.com/gpu", 16000.0, "cpu", 2500.0), 60)), m.queueUsage());
        assertEquals(java.util.List.of(), m.notices());
    }

    @Test
    void anUnreadableUsageIsANoticeAndTheQueueStartsFromNone() {
        Manifests m = queue("last week: lots");
        assertEquals(Map.of(), m.queueUsage());
        assertEquals(1, m.notices().size(), m.notices().toString());
        String notice = m.notices().get(0);
        assertTrue(notice.startsWith("q.yaml:") && notice.contains("Queue research: annotation arbiter.dev/usage: must start with the time")
                && notice.endsWith("the queue's past usage starts from none"), notice);
    }
}
