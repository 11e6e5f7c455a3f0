package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.parse;
import static dev.arbiter.manifest.TestManifests.queue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.Caps;
import dev.arbiter.model.Manifests;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The Queue annotation {@code arbiter.dev/lending-limit}: how it reads, and what a value that does not read does. */
class LendingLimitAnnotationTest {
    private static String queueWith(String value) {
        return """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata:
                  name: research
                  annotations:
                    arbiter.dev/lending-limit: '%s'
                spec: {weight: 1}
                """.formatted(value);
    }

    @Test
    void resourcesAndAmountsReadAsBoundsZerosIncluded() {
        Manifests m = parse(queueWith("nvidia.com/gpu=4, cpu=16, memory=0"));
        assertEquals(Caps.of("nvidia.com/gpu", 4, "cpu", 16, "memory", 0), queue(m, "research").lendingLimit());
        assertTrue(m.notices().isEmpty(), m.notices().toString());
    }

    @Test
    void withoutTheAnnotationThereIsNoLimit() {
        Manifests m = parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: research}
                spec: {weight: 1}
                """);
        assertNull(queue(m, "research").lendingLimit());
    }

    @ParameterizedTest(name = "\"{0}\": {1}")
    @CsvSource(delimiter = '|', value = {
            "nvidia.com/gpu           | \"nvidia.com/gpu\" is not resource=quantity",
            "nvidia.com/gpu=lots      | \"lots\" is not a Kubernetes quantity",
            "nvidia.com/gpu=-1        | nvidia.com/gpu must not be negative",
            "cpu=1,cpu=2              | names cpu twice",
            "=4                       | \"=4\" is not resource=quantity"})
    void aValueThatDoesNotReadIsOneNoticeAndNoLimit(String value, String problem) {
        Manifests m = parse(queueWith(value));
        assertNull(queue(m, "research").lendingLimit());
        assertEquals(1, m.notices().size(), m.notices().toString());
        String notice = m.notices().get(0);
        assertTrue(notice.contains("Queue research"), notice);
        assertTrue(notice.contains("arbiter.dev/lending-limit"), notice);
        assertTrue(notice.contains(problem), notice);
        assertTrue(notice.endsWith("the queue is read without a lending limit"), notice);
        assertEquals(1, notice.lines().count(), notice);
    }

    @Test
    void liveQueuesGiveTheSameNoticeToTheirCaller() {
        Map<String, Object> object = Map.of("apiVersion", "scheduling.volcano.sh/v1beta1", "kind", "Queue",
                "metadata", Map.of("name", "research", "annotations", Map.of("arbiter.dev/lending-limit", "gpu=x")),
                "spec", Map.of("weight", 1));
        List<String> notices = new ArrayList<>();
        assertNull(new ObjectTranslator("api").queue(object, notices::add).lendingLimit());
        assertEquals(1, notices.size());
        assertTrue(notices.get(0).contains("arbiter.dev/lending-limit"), notices.get(0));
        assertEquals(Caps.of("gpu", 2), new ObjectTranslator("api").queue(Map.of("apiVersion", "scheduling.volcano.sh/v1beta1",
                "kind", "Queue", "metadata", Map.of("name", "r", "annotations", Map.of("arbiter.dev/lending-limit", "gpu=2")),
                "spec", Map.of("weight", 1))).lendingLimit());
    }
}
