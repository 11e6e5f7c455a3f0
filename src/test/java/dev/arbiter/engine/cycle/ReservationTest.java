package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.ReasonWords;
import dev.arbiter.decision.Refusal;
import dev.arbiter.decision.Reservation;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.Simulator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Reservation and backfill ({@code reservation} in policy.yaml, {@code rules/reservation.drl}, {@link Reserving}).
 * Translated from Slurm's backfill semantics (sched/backfill: a job may start early on reserved nodes only if its time
 * limit ends before the reservation's start; a job without a limit does not) and Volcano's
 * {@code actions/backfill/backfill_test.go} (which places only BestEffort pods and reserves nothing: the case the
 * shipped policy keeps) and {@code plugins/sla/sla_test.go} (a job past its {@code sla-waiting-time} is served first:
 * here, it reserves).
 *
 * <p>The cluster: two 8-GPU nodes in queue "a"; {@code r1} runs 8 GPUs on node-1 until 30m (its estimate), {@code r2}
 * 4 GPUs on node-2 until 2h, so the gang "big" (2 × 8 GPUs) could start at 2h on both nodes.
 */
class ReservationTest {
    private static final Map<String, RuleBook> BOOKS = new ConcurrentHashMap<>();

    /** The shipped policy with these policy.yaml lines (null: the shipped policy alone). */
    static RuleBook rules(String policy) {
        return rules(policy, null);
    }

    /** The same, with {@code drl} in place of the shipped reservation.drl (null: the shipped one). */
    static RuleBook rules(String policy, String drl) {
        if (policy == null) return Shipped.RULES;
        return BOOKS.computeIfAbsent(policy + drl, p -> {
            try {
                Path pack = Files.createTempDirectory("reservation-test");
                Files.writeString(pack.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
                Files.writeString(pack.resolve("policy.yaml"), policy);
                if (drl != null) Files.writeString(pack.resolve("reservation.drl"), drl);
                return RuleBook.load(pack);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    static final String ON = "reservation: {after: 0s, backfill: true}\n";
    /** A policy that lets only queue a's head reserve (the shipped rule grants every open queue). */
    static final String ONLY_QUEUE_A = """
            package arbiter.policy;
            import dev.arbiter.facts.ReservationGrant;
            import dev.arbiter.policy.PolicySettings;
            rule "reservation: only queue a reserves"
            ruleflow-group "policy"
            when
                PolicySettings( $after : reservationAfterSeconds >= 0 )
            then
                insertLogical( new ReservationGrant( "a", $after, drools.getRule().getName() ) );
            end
            """;

    static final String NO_BACKFILL = "reservation: {after: 0s, backfill: false}\n";

    private static String node(int i) {
        return """
                apiVersion: v1
                kind: Node
                metadata: {name: node-%d}
                status:
                  allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
                ---
                """.formatted(i);
    }

    static String pod(String ns, String name, int gpus, String node, String annotations) {
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                  annotations: {%s}
                spec:
                  schedulerName: arbiter
                  %s
                  containers:
                  - name: c
                    resources: {requests: {nvidia.com/gpu: "%d"}}
                ---
                """.formatted(name, ns, annotations, node == null ? "" : "nodeName: " + node, gpus);
    }

    private static final String QUEUES = """
            apiVersion: scheduling.volcano.sh/v1beta1
            kind: Queue
            metadata: {name: a}
            spec: {weight: 1, reclaimable: true}
            ---
            apiVersion: scheduling.volcano.sh/v1beta1
            kind: Queue
            metadata: {name: b}
            spec: {weight: 1}
            ---
            """;

    private static final String GANG = """
            apiVersion: scheduling.volcano.sh/v1beta1
            kind: PodGroup
            metadata: {name: big, namespace: ta}
            spec: {minMember: 2, queue: a}
            ---
            """ + pod("ta", "big-0", 8, null, "scheduling.k8s.io/group-name: big")
            + pod("ta", "big-1", 8, null, "scheduling.k8s.io/group-name: big");

    private static final String RUNNING = node(1) + node(2) + QUEUES
            + pod("ta", "r1", 8, "node-1", "scheduling.volcano.sh/queue-name: a, arbiter.dev/runtime-estimate: 30m, simulation.arbiter.dev/runtime: 30m")
            + pod("ta", "r2", 4, "node-2", "scheduling.volcano.sh/queue-name: a, arbiter.dev/runtime-estimate: 2h, simulation.arbiter.dev/runtime: 2h");

    /** The first cycle's result (at 60 s). */
    static CycleResult first(RuleBook rules, String yaml) {
        List<CycleResult> out = new ArrayList<>();
        new Simulator(new Scheduler(rules, SchedulerConfig.simulatorDefault()))
                .run(ManifestLoader.parse(yaml, "t.yaml"), new Simulator.Options(1, 60, false, false), (s, r) -> out.add(r));
        return out.get(0);
    }

    @Test
    void aWaitingHeadReservesTheNodesThatStartItSoonest() {
        CycleResult r = first(rules(ON), RUNNING + GANG);
        assertEquals(List.of(new Reservation("ta/big", "a", List.of("node-1", "node-2"), 7200,
                "reservation: a queue's head job that has waited longer than reservation.after reserves the nodes that start it soonest", 0)),
                r.reservations(), "both nodes hold one member each once r2 ends at 2h");
        Refusal why = Shipped.why(r, "ta/big");
        assertEquals(new Refusal.Reserving(List.of("node-1", "node-2"), 7200), Shipped.part(why, Refusal.Reserving.class));
        assertTrue(ReasonWords.words(why).startsWith("reserved nodes node-1, node-2 from t=2h: "), ReasonWords.words(why));
    }

    @Test
    void offByDefaultNothingIsReserved() {
        CycleResult r = first(Shipped.RULES, RUNNING + GANG);
        assertTrue(r.reservations().isEmpty());
        assertFalse(Shipped.why(r, "ta/big").holds(new Refusal.Reserving(List.of("node-1", "node-2"), 7200)));
    }

    /** A one-pod job of queue a, admitted in an earlier cycle (so the admission budget does not decide here). */
    static String admitted(String name, int gpus, String annotations) {
        return """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: %s, namespace: tb}
                spec: {minMember: 1, queue: a}
                status: {phase: Inqueue}
                ---
                """.formatted(name) + pod("tb", name, gpus, null, "scheduling.k8s.io/group-name: " + name
                + (annotations.isEmpty() ? "" : ", " + annotations));
    }

    private static final String SMALL = admitted("long", 4, "") + admitted("short", 4, "arbiter.dev/runtime-estimate: 10m");

    @Test
    void workThatEndsBeforeTheReservationBackfillsWorkWithoutAnEstimateDoesNot() {
        CycleResult r = first(rules(ON), RUNNING + GANG + SMALL);
        assertEquals(java.util.Set.of("tb/short"), Shipped.bound(r), "short ends at 11m, long before 2h; long says nothing");
        assertEquals(1, r.reservations().get(0).backfilled());
        Refusal why = Shipped.why(r, "tb/long");
        assertEquals(Map.of("node(s) reserved for another job", 2), Shipped.part(why, Refusal.NoNodeFits.class).failedFilters());
    }

    @Test
    void aJobKeptOffReservedRoomSaysWhy() {
        CycleResult r = first(rules(ON), RUNNING + GANG + admitted("long", 4, ""));
        assertTrue(r.bindings().isEmpty());
        Refusal why = Shipped.why(r, "tb/long");
        assertEquals(new Refusal.KeptOffReserved("ta/big", 7200, -1, true), Shipped.part(why, Refusal.KeptOffReserved.class));
        assertTrue(ReasonWords.words(why).contains("nodes reserved for ta/big from t=2h are kept for it: this job has no runtime estimate"),
                ReasonWords.words(why));
    }

    @Test
    void withoutReservationTheFirstSmallJobTakesTheFreeRoom() {
        CycleResult r = first(Shipped.RULES, RUNNING + GANG + SMALL);
        assertEquals(java.util.Set.of("tb/long"), Shipped.bound(r));
    }

    @Test
    void backfillOffKeepsEveryOtherJobOff() {
        CycleResult r = first(rules(NO_BACKFILL), RUNNING + GANG + SMALL);
        assertTrue(r.bindings().isEmpty(), r.bindings().toString());
        assertEquals(new Refusal.KeptOffReserved("ta/big", 7200, 600, false),
                Shipped.part(Shipped.why(r, "tb/short"), Refusal.KeptOffReserved.class));
    }

    @Test
    void anEstimateThatEndsAfterTheStartDoesNotBackfill() {
        String late = admitted("late", 4, "arbiter.dev/runtime-estimate: 3h");
        CycleResult r = first(rules(ON), RUNNING + GANG + late);
        assertTrue(r.bindings().isEmpty());
        assertTrue(ReasonWords.words(Shipped.why(r, "tb/late")).contains("its runtime estimate of 3h ends later"));
    }

    @Test
    void reclaimDoesNotTakeVictimsOnReservedNodesForOtherWork() {
        // Queue b deserves half the cluster and holds nothing; queue a holds 12 GPUs. Reclaim would evict r1 or r2 for
        // urgent; with node-1 and node-2 reserved for big, urgent (no estimate) may not have room there at all.
        String urgent = pod("tb", "urgent", 8, null, "scheduling.volcano.sh/queue-name: b");
        CycleResult without = first(Shipped.RULES, RUNNING + GANG + urgent);
        assertFalse(Shipped.evicted(without).isEmpty(), "today reclaim takes r1 or r2 for urgent");
        CycleResult with = first(rules(ON, ONLY_QUEUE_A), RUNNING + GANG + urgent);
        assertEquals(List.of("node-1", "node-2"), with.reservations().get(0).nodes());
        assertTrue(with.evictions().isEmpty(), with.evictions().toString());
    }

    @Test
    void theReservationHoldsItsNodesUntilTheGangStartsThenIsReleased() {
        List<CycleResult> results = new ArrayList<>();
        Manifests m = ManifestLoader.parse(RUNNING + GANG, "t.yaml");
        new Simulator(new Scheduler(rules(ON), SchedulerConfig.simulatorDefault()))
                .run(m, new Simulator.Options(50, 60, false, true), (s, r) -> results.add(r));
        int started = -1;
        for (CycleResult r : results) {
            if (r.bindings().stream().anyMatch(b -> b.pod().startsWith("ta/big"))) {
                started = r.cycle();
                assertTrue(r.reservations().isEmpty(), "released the cycle it starts");
                break;
            }
            assertEquals(List.of("node-1", "node-2"), r.reservations().get(0).nodes(), "cycle " + r.cycle());
        }
        assertEquals(120, started, "r2 ends at 2h, cycle 120 at 60 s a cycle");
    }

    @Test
    void aGangKeptWithinOneRackReservesWithinTheRackThatHoldsItSoonest() {
        StringBuilder yaml = new StringBuilder(QUEUES);
        String[] racks = {"r1", "r1", "r2", "r2"};
        String[] ends = {"30m", "3h", "2h", "2h"};
        for (int i = 1; i <= 4; i++) {
            yaml.append("""
                    apiVersion: v1
                    kind: Node
                    metadata: {name: node-%d, labels: {rack: %s}}
                    status:
                      allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
                    ---
                    """.formatted(i, racks[i - 1]));
            yaml.append(pod("ta", "r" + i, 8, "node-" + i, "scheduling.volcano.sh/queue-name: a, arbiter.dev/runtime-estimate: " + ends[i - 1]));
        }
        String gang = GANG.replace("scheduling.k8s.io/group-name: big", "scheduling.k8s.io/group-name: big, kueue.x-k8s.io/podset-required-topology: rack");
        CycleResult within = first(rules(ON), yaml + gang);
        assertEquals(List.of("node-3", "node-4"), within.reservations().get(0).nodes(), "rack r2 holds both at 2h, r1 only at 3h");
        assertEquals(7200, within.reservations().get(0).start());
        CycleResult anywhere = first(rules(ON), yaml + GANG);
        assertEquals(List.of("node-1", "node-3"), anywhere.reservations().get(0).nodes(), "without the rule: node-1 at 30m, node-3 at 2h");
    }
}
