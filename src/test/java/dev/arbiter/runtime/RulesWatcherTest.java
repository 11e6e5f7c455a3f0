package dev.arbiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.engine.rules.RuleBook;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot reload on the file system: a good edit delivers a new generation, a broken edit delivers its problems and keeps
 * the running rules, and a ConfigMap-style {@code ..data} symlink swap is seen. Every wait is for a listener callback,
 * bounded.
 */
class RulesWatcherTest {
    private static final long WAIT_SECONDS = 20;

    @TempDir
    Path dir;

    private RulesWatcher watcher;
    private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();

    private static String rule(String name) {
        return """
                package arbiter.policy;
                import dev.arbiter.facts.JobFact;

                rule "%s"
                ruleflow-group "policy"
                when
                    JobFact( )
                then
                end
                """.formatted(name);
    }

    private static final String BROKEN = """
            package arbiter.policy;
            import dev.arbiter.facts.JobFact;

            rule "broken"
            when
                JobFact( minMember > )
            then
            end
            """;

    @AfterEach
    void stop() {
        if (watcher != null) watcher.close();
    }

    private RulesWatcher watch(Path folder) throws IOException {
        watcher = new RulesWatcher(folder, RuleBook.load(folder), Duration.ofMillis(50), null, new RulesWatcher.Listener() {
            @Override
            public void reloaded(RuleBook rules, String previousGeneration) {
                events.add(rules);
            }

            @Override
            public void reloadFailed(RulesWatcher.Failure failure) {
                events.add(failure);
            }
        });
        watcher.start();
        return watcher;
    }

    private Object next() throws InterruptedException {
        Object e = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(e, "no reload callback within " + WAIT_SECONDS + " s");
        return e;
    }

    @Test
    void aGoodEditDeliversTheNewGeneration() throws Exception {
        Path rules = pack(dir.resolve("rules"));
        Files.writeString(rules.resolve("a.drl"), rule("first"));
        RulesWatcher w = watch(rules);
        String before = w.current().generation();

        replace(rules.resolve("a.drl"), rule("second"));

        RuleBook reloaded = assertInstanceOf(RuleBook.class, next());
        assertEquals(List.of("second"), own(reloaded));
        assertNotEquals(before, reloaded.generation());
        assertSame(reloaded, w.current());
        assertEquals(1, w.reloads());
        assertEquals(0, w.failures());
    }

    @Test
    void aBrokenEditReportsFileAndLineAndKeepsTheRunningRules() throws Exception {
        Path rules = pack(dir.resolve("rules"));
        Files.writeString(rules.resolve("a.drl"), rule("first"));
        RulesWatcher w = watch(rules);
        RuleBook running = w.current();

        replace(rules.resolve("a.drl"), BROKEN);

        RulesWatcher.Failure f = assertInstanceOf(RulesWatcher.Failure.class, next());
        assertEquals(running.generation(), f.keptGeneration());
        assertEquals(RulesWatcher.contentHash(rules), f.attemptedGeneration());
        assertTrue(f.problems().stream().anyMatch(p -> p.contains("a.drl:6:")), f.problems().toString());
        assertSame(running, w.current(), "the running rules stay");
        assertEquals(1, w.failures());

        // Fixing the file afterwards loads the fix.
        replace(rules.resolve("a.drl"), rule("fixed"));
        RuleBook fixed = assertInstanceOf(RuleBook.class, next());
        assertEquals(List.of("fixed"), own(fixed));
        assertEquals(1, w.failures());
    }

    @Test
    void rulesThatCompileButLoopAreRejectedWithFileAndLineAndTheRunningRulesStay() throws Exception {
        Path rules = pack(dir.resolve("rules"));
        Files.writeString(rules.resolve("a.drl"), rule("first"));
        RulesWatcher w = watch(rules);
        RuleBook running = w.current();

        replace(rules.resolve("a.drl"), Files.readString(Path.of("src/test/resources/policy-safety/loop/loop.drl")));

        RulesWatcher.Failure f = assertInstanceOf(RulesWatcher.Failure.class, next());
        assertEquals(List.of(rules.resolve("a.drl") + ":6: rule \"loop: a tick is always followed by another\" kept firing"),
                f.problems().stream().map(p -> p.substring(0, p.indexOf(" kept firing") + " kept firing".length())).toList());
        assertSame(running, w.current(), "the running rules stay");
        assertEquals(1, w.failures());
    }

    /**
     * Issue 34, item 5: rules that never return are checked in a child process, so they cannot wedge the scheduler's
     * reload: the failure names the rule, the running rules stay, and a later good edit still loads. This rule outlives
     * its stop on Java 17 too (a loop in a finally): checked in this process, as before, it kept the reload thread for
     * good, with no callback, and no later edit ever loaded.
     */
    @Test
    void rulesThatNeverReturnAreRejectedAndALaterGoodEditStillLoads() throws Exception {
        Path rules = pack(dir.resolve("rules"));
        Files.writeString(rules.resolve("a.drl"), rule("first"));
        RulesWatcher w = watch(rules);
        RuleBook running = w.current();

        replace(rules.resolve("a.drl"), Files.readString(Path.of("src/test/resources/policy-safety/spin-finally/spin-finally.drl")));

        RulesWatcher.Failure f = assertInstanceOf(RulesWatcher.Failure.class, events.poll(90, TimeUnit.SECONDS));
        assertTrue(f.problems().size() == 1 && f.problems().get(0).startsWith(rules.resolve("a.drl") + ":3: rule \"spin-finally:"
                + " outlives its stop\" did not return within the deadline"), f.problems().toString());
        assertSame(running, w.current(), "the running rules stay");

        replace(rules.resolve("a.drl"), rule("fixed"));
        RuleBook fixed = assertInstanceOf(RuleBook.class, next());
        assertEquals(List.of("fixed"), own(fixed));
    }

    @Test
    void aBaseOfThePackIsWatchedToo() throws Exception {
        Path base = pack(dir.resolve("base"));
        Files.writeString(base.resolve("a.drl"), rule("in the base"));
        Path top = dir.resolve("top");
        Files.createDirectories(top);
        Files.writeString(top.resolve("pack.yaml"), "extends: ../base\n");
        RulesWatcher w = watch(top);
        assertEquals(List.of("in the base"), own(w.current()));

        replace(base.resolve("a.drl"), rule("edited in the base"));

        assertEquals(List.of("edited in the base"), own(assertInstanceOf(RuleBook.class, next())));
    }

    @Test
    void theSameBrokenContentIsReportedOnce() throws Exception {
        Path rules = pack(dir.resolve("rules"));
        Files.writeString(rules.resolve("a.drl"), rule("first"));
        RulesWatcher w = watch(rules);
        replace(rules.resolve("a.drl"), BROKEN);
        assertInstanceOf(RulesWatcher.Failure.class, next());

        // Touching the folder again without changing the rules: no second failure. A new good file then reloads, and
        // it is the first event after the failure.
        replace(rules.resolve("notes.txt"), "not a rule file");
        replace(rules.resolve("a.drl"), rule("good again"));
        RuleBook after = assertInstanceOf(RuleBook.class, next());
        assertEquals(List.of("good again"), own(after));
        assertEquals(1, w.failures());
    }

    @Test
    void aConfigMapSymlinkSwapIsDetected() throws Exception {
        Path rules = pack(dir.resolve("rules"));
        configMapVersion(rules, "..2026_01_01_00_00_00.000000001", rule("v1"));
        Files.createSymbolicLink(rules.resolve("..data"), Path.of("..2026_01_01_00_00_00.000000001"));
        Files.createSymbolicLink(rules.resolve("policy.drl"), Path.of("..data/policy.drl"));
        RulesWatcher w = watch(rules);
        assertEquals(List.of("v1"), own(w.current()));

        // The kubelet's atomic writer: new timestamped directory, a ..data_tmp link to it, renamed over ..data.
        configMapVersion(rules, "..2026_01_01_00_05_00.000000002", rule("v2"));
        Files.createSymbolicLink(rules.resolve("..data_tmp"), Path.of("..2026_01_01_00_05_00.000000002"));
        Files.move(rules.resolve("..data_tmp"), rules.resolve("..data"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        deleteTree(rules.resolve("..2026_01_01_00_00_00.000000001"));

        RuleBook reloaded = assertInstanceOf(RuleBook.class, next());
        assertEquals(List.of("v2"), own(reloaded));
        assertEquals(RulesWatcher.contentHash(rules), reloaded.generation());
    }

    @Test
    void aBrokenConfigMapVersionKeepsTheRunningRules() throws Exception {
        Path rules = pack(dir.resolve("rules"));
        configMapVersion(rules, "..v1", rule("v1"));
        Files.createSymbolicLink(rules.resolve("..data"), Path.of("..v1"));
        Files.createSymbolicLink(rules.resolve("policy.drl"), Path.of("..data/policy.drl"));
        RulesWatcher w = watch(rules);

        configMapVersion(rules, "..v2", BROKEN);
        Files.createSymbolicLink(rules.resolve("..data_tmp"), Path.of("..v2"));
        Files.move(rules.resolve("..data_tmp"), rules.resolve("..data"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);

        RulesWatcher.Failure f = assertInstanceOf(RulesWatcher.Failure.class, next());
        assertTrue(f.problems().stream().anyMatch(p -> p.contains("policy.drl:6:")), f.problems().toString());
        assertEquals(List.of("v1"), own(w.current()));
    }

    @Test
    void aChangeBetweenLoadingAndStartingIsNotMissed() throws Exception {
        Path rules = pack(dir.resolve("rules"));
        Files.writeString(rules.resolve("a.drl"), rule("loaded"));
        RuleBook loaded = RuleBook.load(rules);
        Files.writeString(rules.resolve("a.drl"), rule("edited before start"));
        watcher = new RulesWatcher(rules, loaded, Duration.ofMillis(50), null, new RulesWatcher.Listener() {
            @Override
            public void reloaded(RuleBook r, String previousGeneration) {
                events.add(r);
            }

            @Override
            public void reloadFailed(RulesWatcher.Failure failure) {
                events.add(failure);
            }
        });
        watcher.start();
        assertEquals(List.of("edited before start"), own(assertInstanceOf(RuleBook.class, next())));
    }

    @Test
    void theContentHashIsTheRuleBooksGeneration() throws IOException {
        assertEquals(RuleBook.load(Path.of("rules")).generation(), RulesWatcher.contentHash(Path.of("rules")));
    }

    @Test
    void closingStopsReloads() throws Exception {
        Path rules = pack(dir.resolve("rules"));
        Files.writeString(rules.resolve("a.drl"), rule("first"));
        RulesWatcher w = watch(rules);
        w.close();
        replace(rules.resolve("a.drl"), rule("second"));
        w.requestCheck();
        assertNull(events.poll(300, TimeUnit.MILLISECONDS), "no callback after close");
        assertEquals(List.of("first"), own(w.current()));
    }

    /** A pack over the shipped rules: hot reload checks a policy as validate does, so it must be a whole one. */
    private static Path pack(Path folder) throws IOException {
        Files.createDirectories(folder);
        Files.writeString(folder.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        return folder;
    }

    /** The rules the pack adds to the shipped ones. */
    private static List<String> own(RuleBook book) {
        List<String> names = new java.util.ArrayList<>(book.ruleNames());
        names.removeAll(dev.arbiter.engine.cycle.Shipped.RULES.ruleNames());
        return names;
    }

    private static void configMapVersion(Path rules, String version, String content) throws IOException {
        Path d = Files.createDirectories(rules.resolve(version));
        Files.writeString(d.resolve("policy.drl"), content);
    }

    private static void deleteTree(Path p) throws IOException {
        try (var s = Files.walk(p)) {
            for (Path f : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(f);
        }
    }

    private static <T> T assertInstanceOf(Class<T> type, Object o) {
        assertTrue(type.isInstance(o), "expected " + type.getSimpleName() + " but got " + o);
        return type.cast(o);
    }

    /** Writes a file the way a careful editor (or the kubelet) does: whole, by renaming a finished temporary file. */
    static void replace(Path file, String content) throws java.io.IOException {
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
