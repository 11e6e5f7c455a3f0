package dev.arbiter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, item 5: a rule that does not return is stopped wherever it runs. On the image's Java 25 there is no
 * {@code Thread.stop}; on Java 17 a consequence can outlive its stop (a loop in a {@code finally}). Either way the
 * command says which rule in one line and exits 3, where it hung for good before. Each case runs {@code arbiter} as a
 * process, as a platform engineer does; the process timeout only turns a hang into a failure.
 */
class StuckRuleTest {
    private static final Path CASES = Path.of("src/test/resources/policy-safety");

    @TempDir
    Path dir;

    @Test
    void onJava25ValidateNamesTheRuleThatDoesNotReturnAndExits3() throws Exception {
        Path java25 = java25();
        assumeTrue(java25 != null, "no JDK 25+ here ($ARBITER_JDK25 or /usr/lib/jvm/*25*)");
        Result r = arbiter(java25, "validate", "--rules", CASES.resolve("spin").toString());
        assertEquals(3, r.exit(), r.err());
        assertTrue(r.errorLines().size() == 1 && r.errorLines().get(0).contains("spin.drl:3: rule \"spin: never returns\" did not"
                + " return within the deadline of 5000 ms") && r.errorLines().get(0).contains("cannot be stopped on this JVM"), r.err());
    }

    @Test
    void onJava25SimulateAtThePolicysDeadlineExits3() throws Exception {
        Path java25 = java25();
        assumeTrue(java25 != null, "no JDK 25+ here ($ARBITER_JDK25 or /usr/lib/jvm/*25*)");
        Path pack = dir.resolve("spin");
        Files.createDirectories(pack);
        Files.writeString(pack.resolve("pack.yaml"), "extends: " + CASES.resolve("spin").toAbsolutePath() + "\n");
        Files.writeString(pack.resolve("policy.yaml"), "limits:\n  deadline: 1s\n");
        Result r = arbiter(java25, "simulate", "--rules", pack.toString(), "deploy/examples/seed");
        assertEquals(3, r.exit(), r.err());
        assertTrue(r.errorLines().size() == 1 && r.errorLines().get(0).contains("rule \"spin: never returns\" did not return within"
                + " the deadline of 1000 ms"), r.err());
    }

    @Test
    void onJava17AConsequenceThatOutlivesItsStopExits3() throws Exception {
        Result r = arbiter(Path.of(System.getProperty("java.home"), "bin", "java"), "validate", "--rules",
                CASES.resolve("spin-finally").toString());
        assertEquals(3, r.exit(), r.err());
        assertTrue(r.errorLines().size() == 1 && r.errorLines().get(0).contains("spin-finally.drl:3: rule \"spin-finally: outlives"
                + " its stop\" did not return within the deadline") && r.errorLines().get(0).contains("did not stop when told to"),
                r.err());
    }

    private record Result(int exit, String err) {
        List<String> errorLines() {
            return err.lines().filter(l -> l.startsWith("error: ")).toList();
        }
    }

    private Result arbiter(Path java, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(java.toString()));
        if (java.toString().contains("25")) command.add("--sun-misc-unsafe-memory-access=allow");
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.arbiter.cli.Main"));
        command.addAll(List.of(args));
        Path err = dir.resolve("err-" + System.nanoTime());
        Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        if (!done) p.destroyForcibly().waitFor();
        String text = Files.readString(err, StandardCharsets.UTF_8);
        assertTrue(done, "hung for 120 s: " + text);
        return new Result(p.exitValue(), text);
    }

    /** A JDK 25 or later: {@code $ARBITER_JDK25}, else one in /usr/lib/jvm, as .ci/run finds it; null when none. */
    static Path java25() throws IOException {
        String env = System.getenv("ARBITER_JDK25");
        if (env != null && Files.isExecutable(Path.of(env, "bin", "java"))) return Path.of(env, "bin", "java");
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) return null;
        try (Stream<Path> s = Files.list(jvms)) {
            return s.filter(p -> p.getFileName().toString().contains("25")).map(p -> p.resolve("bin/java")).filter(Files::isExecutable)
                    .sorted().findFirst().orElse(null);
        }
    }
}
