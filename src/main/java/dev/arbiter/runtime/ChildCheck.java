package dev.arbiter.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the check that {@code validate} makes of a rules folder (compile, then run the rules on the reference cluster)
 * in a child JVM with a deadline, so that rules the scheduler has never run cannot wedge it: a rule that does not
 * return, exits the JVM or eats the heap ends the child, never the scheduler. The child is the same Arbiter on the
 * same Java ({@code validate --check-only}); it stops a stuck rule itself and says which (exit 3), and a child that
 * does not answer by the deadline is killed.
 */
final class ChildCheck {
    /**
     * JVM options for a short-lived check: little heap, quick start. It shares the container's memory limit with the
     * scheduler (whose heap takes 75% of it): the shipped policy's check peaks at about 155 MB resident for about 3 s,
     * and a rule that allocates without end meets the 160 MB heap, not the container's limit.
     */
    private static final List<String> JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx160m",
            "-XX:+ExitOnOutOfMemoryError");

    private ChildCheck() {}

    /**
     * The findings of checking {@code folder}, one {@code file:line: message} each; empty when the rules are sound.
     * Waits at most {@code deadline} for the child.
     */
    static List<String> check(Path folder, Duration deadline) {
        Path err = null;
        Process child = null;
        try {
            err = Files.createTempFile("arbiter-rules-check-", ".err");
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(JVM);
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.arbiter.cli.Main", "validate",
                    "--check-only", "--rules", folder.toAbsolutePath().toString()));
            ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            child = pb.start();
            if (!child.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                child.destroyForcibly();
                child.waitFor(5, TimeUnit.SECONDS);
                return List.of(folder + ": the check of the new rules did not finish within " + deadline.toSeconds()
                        + " s (a rule or condition that never returns?); it was stopped");
            }
            List<String> lines = Files.readAllLines(err, StandardCharsets.UTF_8);
            List<String> findings = new ArrayList<>();
            for (String l : lines) if (l.startsWith("error: ")) findings.add(l.substring("error: ".length()));
            int exit = child.exitValue();
            if (exit == 0) return List.of();
            if (!findings.isEmpty()) return findings;
            String last = lines.stream().filter(l -> !l.isBlank() && !l.startsWith("WARNING")).reduce((a, b) -> b).orElse("");
            return List.of(folder + ": the check of the new rules ended with exit " + exit + (last.isEmpty() ? "" : ": " + last));
        } catch (IOException e) {
            return List.of(folder + ": cannot run the check of the new rules: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of(folder + ": the check of the new rules was interrupted");
        } finally {
            if (child != null && child.isAlive()) child.destroyForcibly();
            if (err != null) {
                try {
                    Files.deleteIfExists(err);
                } catch (IOException ignored) {
                    // a temporary file left behind is harmless
                }
            }
        }
    }
}
