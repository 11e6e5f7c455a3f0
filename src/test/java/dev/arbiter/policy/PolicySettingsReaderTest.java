package dev.arbiter.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code policy.yaml}: what it states replaces the base, the rest stays; every mistake is one file:line line. */
class PolicySettingsReaderTest {
    private static final PolicySettings BASE = PolicySettings.defaults();

    private static PolicySettings read(String yaml) {
        return PolicySettingsReader.read(yaml, "p/policy.yaml", BASE);
    }

    @Test
    void theShippedFileStatesTheDefaults() throws Exception {
        String shipped = Files.readString(Path.of("rules/policy.yaml"));
        assertEquals(BASE, PolicySettingsReader.read(shipped, "rules/policy.yaml", BASE));
        // ... and states every one of them: read onto other settings, it gives the defaults back.
        PolicySettings other = read("""
                churn: {minRuntime: 1h, minRuntimeAgainstPreemption: true, maxEvictionsPerCycle: 1, maxEvictionsPerQueuePerCycle: 1, hysteresis: false}
                order: {queues: [name desc], jobs: [name desc], tasks: [name desc]}
                victims: {order: [oldest first], breakingGang: spare}
                scoring: {mode: spread, weights: {cpu: 3}}
                shares: {ignoredResources: [], usageHalfLife: 1h, usageSamplingInterval: 1m}
                cycle: {admission: queue by queue, nominatedFirst: false, evictions: [reclaim]}
                limits: {firingsPerFact: 1, minFirings: 1, deadline: 1s}
                """);
        assertEquals(BASE, PolicySettingsReader.read(shipped, "rules/policy.yaml", other));
    }

    @Test
    void aFileStatesOnlyWhatItChanges() {
        PolicySettings s = read("""
                churn:
                  minRuntime: 10m
                scoring:
                  weights: {nvidia.com/gpu: 10, cpu: 1}
                cycle:
                  admission: queue by queue
                  evictions: [reclaim, preempt]
                """);
        assertEquals(600, s.churn().minRuntimeSeconds());
        assertEquals(BASE.churn().maxEvictionsPerCycle(), s.churn().maxEvictionsPerCycle());
        assertEquals(Map.of("nvidia.com/gpu", 10, "cpu", 1), s.scoring().weights());
        assertEquals(ScoringMode.BINPACK, s.scoring().mode());
        assertEquals(AdmissionOrder.QUEUE_BY_QUEUE, s.cycle().admission());
        assertEquals(List.of(EvictionAction.RECLAIM, EvictionAction.PREEMPT), s.cycle().evictions());
        assertEquals(BASE.orders(), s.orders());
        assertEquals(BASE.limits(), s.limits());
    }

    @Test
    void anEmptyFileChangesNothing() {
        assertEquals(BASE, read(""));
        assertEquals(BASE, read("# only a comment\n"));
    }

    @Test
    void runtimeDefaultsAndReservationAreOffUntilStated() {
        assertEquals(-1, BASE.runtime().defaultSeconds("team-a", "p2"));
        assertFalse(BASE.reservation().enabled());
        PolicySettings s = read("""
                runtime:
                  defaultByQueue: {team-a: 2h}
                  defaultByPriorityClass: {p2: 30m}
                reservation: {after: 10m, backfill: false}
                """);
        assertEquals(7200, s.runtime().defaultSeconds("team-a", "p2"), "the queue's default wins");
        assertEquals(1800, s.runtime().defaultSeconds("team-b", "p2"));
        assertEquals(-1, s.runtime().defaultSeconds("team-b", "p0"));
        assertEquals(Duration.ofMinutes(10), s.reservation().after());
        assertFalse(s.reservation().backfill());
        assertEquals("p/policy.yaml:1: runtime.defaultByQueue.team-a: must be at least 1s",
                assertThrows(PolicySettingsReader.SettingsException.class,
                        () -> read("runtime: {defaultByQueue: {team-a: 0s}}")).getMessage());
    }

    @Test
    void durationsTakeAUnit() {
        assertEquals(Duration.ofMillis(500), read("limits: {deadline: 500ms}").limits().deadline());
        assertEquals(Duration.ofSeconds(90), read("limits: {deadline: 90}").limits().deadline());
        assertEquals(Duration.ofHours(1), read("limits: {deadline: 1h}").limits().deadline());
        assertEquals(Set.of(), read("shares: {ignoredResources: []}").shares().ignoredResources());
        assertEquals(List.of(EvictionAction.PREEMPT), read("cycle: {evictions: [preempt]}").cycle().evictions());
    }

    @Test
    void aUsageHalfLifeIsOffByDefaultAndTurnsOnWithADuration() {
        assertEquals(null, BASE.shares().usageHalfLife());
        PolicySettings s = read("shares: {usageHalfLife: 24h}\norder: {queues: [priority desc, usage asc, share asc, name asc]}");
        assertEquals(Duration.ofHours(24), s.shares().usageHalfLife());
        assertEquals(Duration.ofMinutes(5), s.shares().usageSamplingInterval(), "Kueue's default sampling interval");
        assertEquals(Set.of("pods"), s.shares().ignoredResources(), "what the file does not state stays");
        assertEquals(null, read("shares: {usageHalfLife: off}").shares().usageHalfLife());
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "churn:\\n  minRuntime: soon                 | p/policy.yaml:2: churn.minRuntime:",
            "churn:\\n  maxEvictionsPerCycle: -1         | p/policy.yaml:2: churn.maxEvictionsPerCycle:",
            "churn:\\n  minRuntme: 10m                   | p/policy.yaml:2: churn.minRuntme: unknown setting",
            "order:\\n  jobs: [priority sideways]        | p/policy.yaml:2: order.jobs[0]:",
            "victims:\\n  order: [youngest first]        | p/policy.yaml:2: victims.order[0]: unknown victim order key \"youngest first\"",
            "victims:\\n  breakingGang: shrug            | p/policy.yaml:2: victims.breakingGang:",
            "scoring:\\n  mode: random                   | p/policy.yaml:2: scoring.mode:",
            "cycle:\\n  evictions: [preempt, preempt]    | p/policy.yaml:2: cycle.evictions: names an action twice",
            "cycle:\\n  evictions: [evict]               | p/policy.yaml:2: cycle.evictions[0]:",
            "limits:\\n  firingsPerFact: 0               | p/policy.yaml:",
            "flavour: vanilla                            | p/policy.yaml:1: flavour: unknown setting",
            "churn: [1, 2]                               | p/policy.yaml:1: churn:",
            "churn:\\n  minRuntime: 1m\\n  minRuntime: 2m | p/policy.yaml:3: churn.minRuntime: stated twice",
            "shares:\\n  usageHalfLife: soon            | p/policy.yaml:2: shares.usageHalfLife: must be a duration",
            "shares:\\n  usageHalfLife: 0s              | p/policy.yaml:2: shares.usageHalfLife: must be at least 1s, or off",
            "shares:\\n  usageSamplingInterval: 0      | p/policy.yaml:2: shares.usageSamplingInterval: must be at least 1s",
            "order:\\n  queues: [usage asc, name asc]  | p/policy.yaml:2: order.queues: the key usage ranks queues by their decayed past usage"})
    void aMistakeIsOneLineWithFileLineAndField(String yaml, String expected) {
        PolicySettingsReader.SettingsException e = assertThrows(PolicySettingsReader.SettingsException.class,
                () -> read(yaml.replace("\\n", "\n")));
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }
}
