package dev.arbiter.forecast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.policy.PolicySettings;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The forecast runs the cluster forward with the real engine, each job ending at its estimate; a job whose start
 * depends on an end no one estimated gets none. The model is Slurm's {@code squeue --start} (squeue(1): "the expected
 * start time ... of pending jobs"), where running jobs end by their time limits; no Kubernetes scheduler has an
 * upstream test to translate, so the cases here are our own.
 */
class ForecasterTest {
    static final long CYCLE = 10;

    static String node(String name) {
        return """
                apiVersion: v1
                kind: Node
                metadata: {name: %s}
                status:
                  allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
                ---
                """.formatted(name);
    }

    /** A gang of {@code members} pods of 8 GPUs in {@code queue}; {@code node} null: pending; estimate null: none. */
    static String gang(String name, String queue, int members, String estimate, String node, String simulated) {
        StringBuilder b = new StringBuilder("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: %s, namespace: team}
                spec: {minMember: %d, queue: %s}
                ---
                """.formatted(name, members, queue));
        for (int i = 0; i < members; i++) {
            StringBuilder ann = new StringBuilder("scheduling.k8s.io/group-name: " + name);
            if (estimate != null) ann.append(", arbiter.dev/runtime-estimate: \"").append(estimate).append('"');
            if (simulated != null) ann.append(", simulation.arbiter.dev/runtime: \"").append(simulated).append('"');
            b.append("""
                    apiVersion: v1
                    kind: Pod
                    metadata:
                      name: %s-%d
                      namespace: team
                      annotations: {%s}
                    spec:
                      schedulerName: arbiter
                      %s
                      containers:
                      - name: c
                        resources: {requests: {nvidia.com/gpu: "8"}}
                    ---
                    """.formatted(name, i, ann, node == null ? "" : "nodeName: " + node + "-" + i));
        }
        return b.toString();
    }

    static final String QUEUES = """
            apiVersion: scheduling.volcano.sh/v1beta1
            kind: Queue
            metadata: {name: a}
            spec: {weight: 1}
            ---
            apiVersion: scheduling.volcano.sh/v1beta1
            kind: Queue
            metadata: {name: b}
            spec: {weight: 1}
            ---
            """;

    static Forecast forecast(RuleBook rules, String yaml) {
        Manifests m = ManifestLoader.parse(yaml, "t.yaml");
        Scheduler s = new Scheduler(rules, SchedulerConfig.simulatorDefault());
        ClusterSnapshot start = SnapshotTap.atStart(m, s, CYCLE);
        return new Forecaster(rules, SchedulerConfig.simulatorDefault(), Forecaster.Settings.defaults(CYCLE)).forecast(start);
    }

    static String twoNodes() {
        return node("n-0") + node("n-1");
    }

    @Test
    void aJobBehindARunningGangStartsWhenItsEstimateEnds() {
        Forecast f = forecast(Shipped.RULES, QUEUES + twoNodes() + gang("running", "a", 2, "2h", "n", null)
                + gang("next", "a", 2, "1h", null, null));
        StartEstimate e = f.of("team/next");
        assertTrue(e.isKnown(), e.toString());
        // running started at time 0 (the manifests' start) and ends at 7200 s; the first cycle at or after it binds next.
        assertEquals(7200, e.at());
        assertEquals(CYCLE, f.now());
        assertEquals(7190, e.secondsAfter(f.now()));
        assertNull(f.of("team/running"), "a running job is not pending");
    }

    @Test
    void aJobBehindAJobWithoutAnEstimateHasNone() {
        Forecast f = forecast(Shipped.RULES, QUEUES + twoNodes() + gang("forever", "b", 2, null, "n", null)
                + gang("next", "a", 2, "1h", null, null));
        StartEstimate e = f.of("team/next");
        assertEquals(StartEstimate.None.WAITS_ON_UNKNOWN_END, e.none());
        assertEquals("team/forever", e.waitsOn());
        assertEquals(-1, e.at());
        assertEquals(1, f.withoutEstimate());
    }

    @Test
    void aQueueDefaultStandsInForTheAnnotation() {
        RuleBook rules = Shipped.RULES.withRuntime(new PolicySettings.Runtime(Map.of("b", 3600L), Map.of()));
        Forecast f = forecast(rules, QUEUES + twoNodes() + gang("forever", "b", 2, null, "n", null)
                + gang("next", "a", 2, null, null, null));
        assertEquals(3600, f.of("team/next").at(), "queue b's default, 1h, ends the running job");
    }

    @Test
    void aJobThatStartsAtOnceStartsNow() {
        Forecast f = forecast(Shipped.RULES, QUEUES + twoNodes() + gang("next", "a", 2, null, null, null));
        assertEquals(CYCLE, f.of("team/next").at(), "it needs no estimate of its own: nothing it waits on");
    }

    @Test
    void beyondTheHorizonIsNone() {
        Forecast f = forecast(Shipped.RULES, QUEUES + twoNodes() + gang("long", "a", 2, "8d", "n", null)
                + gang("next", "a", 2, "1h", null, null));
        assertEquals(StartEstimate.None.BEYOND_HORIZON, f.of("team/next").none());
    }

    @Test
    void aJobTooLargeForTheClusterNeverStarts() {
        Forecast f = forecast(Shipped.RULES, QUEUES + twoNodes() + gang("huge", "a", 3, "1h", null, null));
        assertEquals(StartEstimate.None.NEVER, f.of("team/huge").none());
    }

    @Test
    void aChainOfEstimatesAddsUp() {
        // One node: first runs 1h from 0, then second (2h), then third.
        Forecast f = forecast(Shipped.RULES, QUEUES + node("n-0") + gang("first", "a", 1, "1h", "n", null)
                + gang("second", "a", 1, "2h", null, null) + gang("third", "a", 1, "30m", null, null));
        assertEquals(3600, f.of("team/second").at());
        assertEquals(3600 + 7200, f.of("team/third").at());
    }

    @Test
    void aPendingJobWithoutAnEstimateBlocksThoseAfterIt() {
        Forecast f = forecast(Shipped.RULES, QUEUES + node("n-0") + gang("first", "a", 1, "1h", "n", null)
                + gang("second", "a", 1, null, null, null) + gang("third", "a", 1, "30m", null, null));
        assertEquals(3600, f.of("team/second").at());
        assertEquals(StartEstimate.None.WAITS_ON_UNKNOWN_END, f.of("team/third").none());
        assertEquals("team/second", f.of("team/third").waitsOn());
    }

    @Test
    void aForecastIgnoresTheSimulatedRuntimesAndReadsOnlyEstimates() {
        // The simulator's real runtime (30m) is not the forecast's business: it reads the 2h estimate.
        Forecast f = forecast(Shipped.RULES, QUEUES + twoNodes() + gang("running", "a", 2, "2h", "n", "30m")
                + gang("next", "a", 2, "1h", null, null));
        assertEquals(7200, f.of("team/next").at());
    }

    static Forecast forecastAt(dev.arbiter.scenario.ClusterBuilder c, long now) {
        return new Forecaster(Shipped.RULES, SchedulerConfig.simulatorDefault(), Forecaster.Settings.defaults(CYCLE))
                .forecast(c.snapshot(now));
    }

    static dev.arbiter.scenario.ClusterBuilder oneNode() {
        return dev.arbiter.scenario.ClusterBuilder.cluster().nodes(1, "nvidia.com/gpu", 8);
    }

    @Test
    void aJobPastItsEstimateHasAnUnknownEnd() {
        // Started at 1000 with a 1h estimate; at 10000 it still runs: when it ends, no one knows.
        var c = oneNode();
        c.job("team/late").pods(1, "nvidia.com/gpu", 8).annotate(dev.arbiter.model.Runtimes.ESTIMATE, "1h")
                .running("node-1").startedAt(1000).end();
        c.job("team/next").pods(1, "nvidia.com/gpu", 8).annotate(dev.arbiter.model.Runtimes.ESTIMATE, "1h").end();
        StartEstimate e = forecastAt(c, 10_000).of("team/next");
        assertEquals(StartEstimate.None.WAITS_ON_UNKNOWN_END, e.none());
        assertEquals("team/late", e.waitsOn());
        // Before its estimate ran out, the same job ends at its start plus the estimate.
        var d = oneNode();
        d.job("team/late").pods(1, "nvidia.com/gpu", 8).annotate(dev.arbiter.model.Runtimes.ESTIMATE, "1h")
                .running("node-1").startedAt(1000).end();
        d.job("team/next").pods(1, "nvidia.com/gpu", 8).annotate(dev.arbiter.model.Runtimes.ESTIMATE, "1h").end();
        assertEquals(4600, forecastAt(d, 2000).of("team/next").at());
    }

    @Test
    void aPodBoundButNotStartedStartsNow() {
        var c = oneNode();
        c.job("team/bound").pods(1, "nvidia.com/gpu", 8).annotate(dev.arbiter.model.Runtimes.ESTIMATE, "1h")
                .running("node-1").end();
        c.job("team/next").pods(1, "nvidia.com/gpu", 8).end();
        assertEquals(5000 + 3600, forecastAt(c, 5000).of("team/next").at());
    }

    @Test
    void anotherSchedulersPodWithoutAnEstimateIsThereForGood() {
        // A pod of another scheduler (a DaemonSet's, the system's) holds the node: no one says it ends, and the
        // forecast does not claim the job waits on it; it would not start.
        var c = oneNode();
        c.job("kube-system/agent").pods(1, "nvidia.com/gpu", 8).schedulerName("default-scheduler").running("node-1").end();
        c.job("team/next").pods(1, "nvidia.com/gpu", 8).annotate(dev.arbiter.model.Runtimes.ESTIMATE, "1h").end();
        StartEstimate e = forecastAt(c, 100).of("team/next");
        assertEquals(StartEstimate.None.NEVER, e.none(), e.toString());
    }

    /** With exact estimates the forecast is the simulated outcome: the same engine, the same world. */
    @Test
    void exactEstimatesForecastTheSimulation() {
        String yaml = QUEUES + twoNodes() + gang("running", "a", 1, "2h", "n", "2h")
                + gang("x", "a", 2, "1h", null, "1h") + gang("y", "b", 1, "45m", null, "45m")
                + gang("z", "b", 2, "3h", null, "3h") + gang("w", "a", 1, "10m", null, "10m");
        Forecast f = forecast(Shipped.RULES, yaml);
        Map<String, Long> simulated = simulatedStarts(Shipped.RULES, ManifestLoader.parse(yaml, "t.yaml"));
        Map<String, Long> forecast = new TreeMap<>();
        for (StartEstimate e : f.estimates()) forecast.put(e.job(), e.at());
        assertEquals(simulated, forecast);
        assertEquals(4, forecast.size());
    }

    /** Each job's first bind time in a simulation of {@code m} with cycles of {@link #CYCLE} seconds. */
    static Map<String, Long> simulatedStarts(RuleBook rules, Manifests m) {
        SimulationResult r = new Simulator(new Scheduler(rules, SchedulerConfig.simulatorDefault()))
                .run(m, new Simulator.Options(10_000, CYCLE, false, true));
        Map<String, String> jobOf = new java.util.HashMap<>();
        for (dev.arbiter.model.PodSpec p : m.pods()) jobOf.put(p.key(), p.jobId());
        Map<String, Long> out = new TreeMap<>();
        for (CycleResult c : r.cycles()) {
            for (Binding b : c.bindings()) out.putIfAbsent(jobOf.get(b.pod()), c.cycle() * CYCLE);
        }
        for (dev.arbiter.model.PodSpec p : m.pods()) if (p.isBound()) out.remove(p.jobId());
        return out;
    }
}
