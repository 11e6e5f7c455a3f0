package dev.arbiter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.engine.cycle.Shipped;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code arbiter shadow-report --shadow-rules DIR PATH...}: the shadow beside the simulator's run, on the seed story,
 * with a candidate that has no reclaim (the shipped rules without reclaim.drl, as {@code PolicyDiffTest}'s).
 */
class ShadowReportOfflineTest {
    @TempDir
    static Path dir;
    static Path noReclaim;

    @BeforeAll
    static void copyRulesWithoutReclaim() throws IOException {
        noReclaim = Shipped.rulesWithout(dir, "no-reclaim", "reclaim.drl");
    }

    @Test
    void theCandidateWithoutReclaimWouldNotEvictWhatTheActivePolicyReclaims() {
        CliRunner r = CliRunner.run("shadow-report", "--rules", "rules", "--shadow-rules", noReclaim.toString(), "-o", "wide",
                "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("Shadow rules " + noReclaim), r.out());
        assertTrue(r.out().matches("(?s).*\\neviction\\s+b01/tenantb-heavy-training-worker-2\\s+evicted \\(reclaim for"
                + " a01/qwen2-72b-unified-pg\\)\\s+stays\\s+reclaim: [^\\n]+\\s+-\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\nactive\\s+reclaim: [^\\n]+\\s+2\\n.*"), r.out());
        assertTrue(r.err().isEmpty(), "no log line: the report says it all\n" + r.err());
    }

    @Test
    void pathsWithoutAShadowAreOneLineAndExit2() {
        CliRunner r = CliRunner.run("shadow-report", "deploy/examples/seed");
        assertEquals(2, r.exit());
        assertEquals("error: PATH needs --shadow-rules DIR (the candidate to run beside --rules)", r.err().strip());
    }
}
