package dev.arbiter.engine.rules;

import dev.arbiter.engine.cycle.PolicyCheck;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.cycle.Shipped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.ClusterWorld;
import dev.arbiter.synth.SynthSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiled rules kept on disk: a restart reads them back instead of compiling, decides exactly as freshly compiled
 * rules do, and a cache file that is corrupt, stale or unwritable only costs a compilation and one notice line.
 */
class RulesCacheTest {
    private static final Path SHIPPED = Path.of("rules");

    @TempDir
    Path dir;

    private final List<String> notices = new ArrayList<>();

    private RulesCache cache() {
        return RulesCache.at(dir.resolve("cache")).withNotices(notices::add);
    }

    private List<Path> cached() throws IOException {
        Path folder = dir.resolve("cache");
        if (!Files.isDirectory(folder)) return List.of();
        try (Stream<Path> s = Files.list(folder)) {
            return s.filter(p -> p.toString().endsWith(".kbase")).toList();
        }
    }

    @Test
    void aSecondLoadReadsTheCompiledRulesBackAndDecidesAsFreshlyCompiledRules() throws IOException {
        RuleBook first = RuleBook.load(SHIPPED, cache());
        RuleBook second = RuleBook.load(SHIPPED, cache());
        assertFalse(first.fromCache());
        assertTrue(second.fromCache());
        assertEquals(1, cached().size());
        assertEquals(Shipped.RULES.ruleNames(), second.ruleNames());
        assertEquals(Shipped.RULES.generation(), second.generation());
        assertEquals(Shipped.RULES.locate("gang: a job starts only when minMember of its tasks can run together"),
                second.locate("gang: a job starts only when minMember of its tasks can run together"));
        for (long seed = 1; seed <= 4; seed++) assertSameDecisions(Shipped.RULES, second, seed);
        assertEquals(List.of(), notices);
    }

    @Test
    void aCorruptCacheFileIsIgnoredWithOneNoticeAndRewritten() throws IOException {
        RuleBook.load(SHIPPED, cache());
        Path file = cached().get(0);
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        RuleBook again = RuleBook.load(SHIPPED, cache());
        assertFalse(again.fromCache());
        assertEquals(1, notices.size(), notices.toString());
        assertTrue(notices.get(0).startsWith("ignoring the rules cache " + file + " ("), notices.get(0));
        assertTrue(notices.get(0).endsWith("); compiling the rules again"), notices.get(0));
        assertTrue(RuleBook.load(SHIPPED, cache()).fromCache(), "rewritten after compiling");
        assertEquals(1, notices.size(), notices.toString());
    }

    @Test
    void aFileWrittenForAnotherKeyIsNotTrusted() throws IOException {
        Path rules = copyOfShipped();
        RuleBook.load(rules, cache());
        Path old = cached().get(0);
        Files.writeString(rules.resolve("order.drl"), Files.readString(rules.resolve("order.drl")) + "\n// edited\n");
        // The edited rules have a new key: they compile, and an old file copied under the new name is refused.
        RuleBook edited = RuleBook.load(rules, cache());
        assertFalse(edited.fromCache());
        Path fresh = cached().stream().filter(p -> !p.equals(old)).findFirst().orElseThrow();
        Files.copy(old, fresh, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        RuleBook again = RuleBook.load(rules, cache());
        assertFalse(again.fromCache());
        assertEquals(1, notices.size(), notices.toString());
        assertTrue(notices.get(0).contains("written for another key"), notices.get(0));
    }

    @Test
    void editedRulesAreCompiledAgainNotTakenFromTheCache() throws IOException {
        Path rules = copyOfShipped();
        RuleBook before = RuleBook.load(rules, cache());
        Files.writeString(rules.resolve("victims.drl"), Files.readString(rules.resolve("victims.drl"))
                .replace("is never evicted\"", "is never, ever evicted\""));
        RuleBook after = RuleBook.load(rules, cache());
        assertFalse(after.fromCache());
        assertTrue(after.ruleNames().contains("victims: a pod marked volcano.sh/preemptable false is never, ever evicted"));
        assertFalse(before.generation().equals(after.generation()));
        assertEquals(2, cached().size());
    }

    @Test
    void aPackReadFromTheCacheKeepsItsDisabledRulesOff() {
        Path pack = Path.of("deploy/policies/capacity");
        RuleBook fresh = RuleBook.load(pack);
        RuleBook.load(pack, cache());
        RuleBook again = RuleBook.load(pack, cache());
        assertTrue(again.fromCache());
        assertEquals(fresh.ruleNames(), again.ruleNames());
        assertEquals(fresh.packName(), again.packName());
        for (String rule : fresh.ruleNames()) assertEquals(fresh.locate(rule), again.locate(rule), rule);
        for (long seed = 1; seed <= 3; seed++) assertSameDecisions(fresh, again, seed);
    }

    @Test
    void rulesThatDeclareTypesAreCompiledEachTimeQuietly() throws IOException {
        // Drools writes declared types but cannot read them back: such rules are not cached at all.
        Path loop = Path.of("src/test/resources/policy-safety/loop");
        RuleBook.load(loop, cache());
        RuleBook again = RuleBook.load(loop, cache());
        assertEquals(List.of(), notices);
        assertFalse(again.fromCache());
        assertEquals(List.of(), cached());
        assertEquals(PolicyCheck.check(RuleBook.load(loop).withDeadline(java.time.Duration.ofSeconds(5)), List.of()),
                PolicyCheck.check(again.withDeadline(java.time.Duration.ofSeconds(5)), List.of()));
    }

    @Test
    void rulesThatDoNotCompileAreNeverCached() throws IOException {
        Path rules = copyOfShipped();
        Files.writeString(rules.resolve("broken.drl"), "package arbiter.policy;\nrule \"broken\"\nwhen\n  Nothing( )\nthen\nend\n");
        for (int i = 0; i < 2; i++) assertThrows(RuleCompileException.class, () -> RuleBook.load(rules, cache()));
        assertEquals(List.of(), cached());
    }

    @Test
    void aCacheFolderThatCannotBeWrittenCostsOnlyTheCompilation() throws IOException {
        Path notAFolder = Files.writeString(dir.resolve("file"), "x");
        RulesCache blocked = RulesCache.at(notAFolder.resolve("cache")).withNotices(notices::add);
        RuleBook book = RuleBook.load(SHIPPED, blocked);
        assertEquals(Shipped.RULES.ruleNames(), book.ruleNames());
        assertEquals(1, notices.size(), notices.toString());
        assertTrue(notices.get(0).startsWith("cannot write the rules cache "), notices.get(0));
    }

    @Test
    void offMeansNoCache() {
        assertEquals(null, RulesCache.fromEnvironment("off").folder());
        assertEquals(dir, RulesCache.fromEnvironment(dir.toString()).folder());
    }

    private Path copyOfShipped() throws IOException {
        Path rules = Files.createDirectories(dir.resolve("rules"));
        try (Stream<Path> files = Files.list(SHIPPED)) {
            for (Path f : files.toList()) Files.copy(f, rules.resolve(f.getFileName()));
        }
        return rules;
    }

    /** Five cycles of a generated cluster under each rule book: the same decisions, made by the same rules. */
    private static void assertSameDecisions(RuleBook expected, RuleBook actual, long seed) {
        SynthSpec spec = SynthSpec.small(12, 80, 3, seed, 0.6);
        ClusterWorld a = new ClusterWorld(ClusterGenerator.generate(spec));
        ClusterWorld b = new ClusterWorld(ClusterGenerator.generate(spec));
        Scheduler sa = new Scheduler(expected, SchedulerConfig.simulatorDefault());
        Scheduler sb = new Scheduler(actual, SchedulerConfig.simulatorDefault());
        for (int cycle = 1; cycle <= 5; cycle++) {
            ClusterSnapshot snap = a.snapshot();
            CycleResult ra = sa.schedule(snap, cycle);
            CycleResult rb = sb.schedule(b.snapshot(), cycle);
            String at = spec + " cycle " + cycle;
            assertEquals(ra.bindings(), rb.bindings(), at);
            assertEquals(ra.evictions(), rb.evictions(), at);
            assertEquals(ra.podGroups(), rb.podGroups(), at);
            assertEquals(ra.queues(), rb.queues(), at);
            assertEquals(ra.rulesFired(), rb.rulesFired(), at);
            a.apply(ra);
            b.apply(rb);
        }
    }
}
