package dev.arbiter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code train-jvm}, the image's AOT training run (deploy/Dockerfile): it runs what a start of {@code run} runs, says
 * what it did in one line, leaves no rules cache behind, and refuses what {@code run} refuses.
 */
class TrainCommandTest {
    @Test
    void doesWhatAStartDoesOnASmallClusterAndLeavesNothingBehind() throws IOException {
        long before = trainingFolders();
        CliRunner r = CliRunner.run("train-jvm", "--rules", "rules", "--nodes", "20", "--pods", "100", "--cycles", "2",
                "--warm-up-cycles", "1");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().matches("trained: rules \\w+ compiled and read back, 1 warm-up cycles, 2 cycles at 20 x 100 \\(\\d+ bindings\\)\\s*"),
                r.out());
        assertTrue(!r.out().contains("(0 bindings)"), "the cycles placed pods: " + r.out());
        assertEquals(before, trainingFolders(), "its temporary rules cache is deleted");
    }

    @Test
    void refusesBadArguments() {
        CliRunner r = CliRunner.run("train-jvm", "--rules", "rules", "--nodes", "0");
        assertEquals(Main.INVALID_INPUT, r.exit());
        assertTrue(r.err().startsWith("error: --nodes"), r.err());
    }

    private static long trainingFolders() throws IOException {
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.filter(p -> p.getFileName().toString().startsWith("arbiter-train-rules")).count();
        }
    }
}
