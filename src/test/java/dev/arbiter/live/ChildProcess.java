package dev.arbiter.live;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code arbiter} in a JVM of its own (same class path as the tests), for what only a process shows: its exit code,
 * how it answers signals, and its log at the default level. stdout and stderr go to files.
 */
final class ChildProcess implements AutoCloseable {
    private final Process process;
    private final Path stderr;

    private ChildProcess(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
    }

    static ChildProcess arbiter(Path dir, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx512m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("dev.arbiter.cli.Main");
        cmd.addAll(List.of(args));
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        return new ChildProcess(p, err);
    }

    /** Sends SIGTERM (what the kubelet sends first). */
    void terminate() {
        process.destroy();
    }

    /** The exit code, or null if still running after {@code seconds}. */
    Integer waitFor(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : null;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    String stderr() {
        try {
            return Files.readString(stderr, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no stderr: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) process.destroyForcibly();
    }
}
