package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.live.LiveScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * API Priority and Fairness squeezing Arbiter's identity (a FlowSchema for its ServiceAccount into a priority level of
 * one share that rejects what it cannot seat): the API server answers many of Arbiter's requests 429; Arbiter slows
 * down, stays healthy, binds every pod exactly once, and does not loop (its requests stay a small multiple of the work).
 */
class PriorityAndFairnessRealTest extends RealClusterTest {
    static final int PODS = 150;

    @Test
    void squeezedByApfArbiterDegradesButBindsEveryPodOnce() throws Exception {
        cluster.namespace("apf");
        for (int i = 0; i < 10; i++) node("apf-" + i, 64, 0);
        squeeze(1);

        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        LiveScheduler s = runningScheduler(cluster.arbiterClient(AGENT), config("arbiter-test").withPeriod(Duration.ofMillis(500)),
                registry);
        List<String> pods = new ArrayList<>();
        for (int i = 0; i < PODS; i++) pods.add(pod("apf", "p-" + i, null, "arbiter", 0, null));
        apply(docs(pods));

        await("every pod bound", () -> bound("apf") == PODS, Duration.ofSeconds(120));
        assertTrue(s.isHealthy(), "the scheduler stayed healthy");
        List<AuditLog.Request> mine = arbiterRequests();
        long throttled = mine.stream().filter(r -> r.code() == 429).count();
        assertTrue(throttled > 0, "the squeeze was felt: some requests were answered 429");
        Map<String, Long> accepted = mine.stream().filter(r -> r.on("pods", "binding") && r.code() == 201)
                .collect(Collectors.groupingBy(AuditLog.Request::name, Collectors.counting()));
        assertEquals(PODS, accepted.size());
        assertTrue(accepted.values().stream().allMatch(n -> n == 1), () -> "bound more than once: " + accepted);
        // Fault 6: an Event refused with 429 is retried, not dropped (the audit log cannot name a create that APF
        // refused before reading its body, so the scheduler's own counts tell).
        await("every event written", () -> registry.get("arbiter.events.pending").gauge().value() == 0);
        long refusedEvents = mine.stream().filter(r -> "events".equals(r.resource()) && r.code() == 429).count();
        System.out.println(refusedEvents + " Event writes were refused with 429, " + throttled + " requests in all");
        assertEquals(0.0, events(registry, "failed") + events(registry, "dropped"), "events given up or dropped");
        if (refusedEvents > 0) assertTrue(events(registry, "retried") >= 1, "refused events were retried");
        long bindAttempts = mine.stream().filter(r -> r.on("pods", "binding")).count();
        assertTrue(bindAttempts <= PODS * 6L, () -> "binding requests: " + bindAttempts + " for " + PODS + " pods");
    }

    /**
     * A FlowSchema that puts every request of Arbiter's ServiceAccount into a priority level of {@code shares}
     * nominal concurrency shares that rejects what it cannot seat; removed after the test.
     */
    private void squeeze(int shares) {
        apply("""
                apiVersion: flowcontrol.apiserver.k8s.io/v1
                kind: PriorityLevelConfiguration
                metadata: {name: arbiter-squeezed}
                spec:
                  type: Limited
                  limited:
                    nominalConcurrencyShares: %d
                    lendablePercent: 0
                    borrowingLimitPercent: 0
                    limitResponse: {type: Reject}
                ---
                apiVersion: flowcontrol.apiserver.k8s.io/v1
                kind: FlowSchema
                metadata: {name: arbiter-squeezed}
                spec:
                  priorityLevelConfiguration: {name: arbiter-squeezed}
                  matchingPrecedence: 100
                  distinguisherMethod: {type: ByUser}
                  rules:
                    - subjects: [{kind: ServiceAccount, serviceAccount: {name: arbiter, namespace: arbiter-system}}]
                      resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"]}]
                      nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
                """.formatted(shares));
        closeAfter(() -> {
            admin.flowControl().v1().flowSchema().withName("arbiter-squeezed").delete();
            admin.flowControl().v1().priorityLevelConfigurations().withName("arbiter-squeezed").delete();
        });
        await("the API server applies the FlowSchema", () -> {
            var fs = admin.flowControl().v1().flowSchema().withName("arbiter-squeezed").get();
            return fs.getStatus() != null && fs.getStatus().getConditions().stream()
                    .anyMatch(c -> c.getType().equals("Dangling") && c.getStatus().equals("False"));
        });

    }

    private static double events(io.micrometer.core.instrument.MeterRegistry registry, String outcome) {
        var c = registry.find("arbiter.events").tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }
}
