package dev.arbiter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-time estimates as simulate, explain and the report show them (docs/estimates.md). */
class EstimatesCliTest {
    @TempDir
    Path dir;

    private static String job(String ns, String name, String estimate, String node) {
        String ann = estimate == null ? "" : ", arbiter.dev/runtime-estimate: \"" + estimate + "\"";
        return """
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: %2$s, namespace: %1$s}
                spec: {minMember: 1, queue: %1$s}
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %2$s-0
                  namespace: %1$s
                  annotations: {scheduling.k8s.io/group-name: %2$s%3$s}
                spec:
                  schedulerName: arbiter
                  %4$s
                  containers:
                  - name: c
                    resources: {requests: {nvidia.com/gpu: "8"}, limits: {nvidia.com/gpu: "8"}}
                ---
                """.formatted(ns, name, ann, node == null ? "" : "nodeName: " + node);
    }

    private static final String CLUSTER = """
            apiVersion: v1
            kind: Node
            metadata: {name: gpu-1}
            status:
              allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
            ---
            apiVersion: scheduling.volcano.sh/v1beta1
            kind: Queue
            metadata: {name: team-a}
            spec: {weight: 1}
            ---
            apiVersion: scheduling.volcano.sh/v1beta1
            kind: Queue
            metadata: {name: team-b}
            spec: {weight: 1}
            ---
            """;

    private Path write(String yaml) throws IOException {
        return Files.writeString(dir.resolve("c.yaml"), yaml);
    }

    @Test
    void simulateShowsEachPendingJobsStart() throws IOException {
        Path f = write(CLUSTER + job("team-a", "pretrain", "2h", "gpu-1") + job("team-a", "finetune", "45m", null));
        CliRunner table = CliRunner.run("simulate", f.toString(), "--cycle-seconds", "10");
        assertEquals(0, table.exit(), table.err());
        assertTrue(table.out().contains("START"), table.out());
        assertTrue(table.out().matches("(?s).*team-a/finetune +Pending .* in 1h59m .*"), table.out());
        CliRunner json = CliRunner.run("simulate", f.toString(), "--cycle-seconds", "10", "-o", "json");
        assertTrue(json.out().contains("{\"podGroup\":\"team-a/finetune\",\"queue\":\"team-a\",\"at\":7200,\"in\":7180,"
                + "\"none\":null,\"waitsOn\":null,\"text\":\"in 1h59m (at simulated second 7200)\"}"), json.out());
    }

    @Test
    void withoutAnyEstimateSimulateIsAsBefore() throws IOException {
        Path f = write(CLUSTER + job("team-a", "pretrain", null, "gpu-1") + job("team-a", "finetune", null, null));
        CliRunner table = CliRunner.run("simulate", f.toString());
        assertFalse(table.out().contains("START"), table.out());
        assertFalse(CliRunner.run("simulate", f.toString(), "-o", "json").out().contains("estimates"));
        assertFalse(CliRunner.run("explain", "team-a/finetune", f.toString()).out().contains("estimated start"));
    }

    @Test
    void explainSaysWhichJobWithoutAnEstimateItWaitsOn() throws IOException {
        Path f = write(CLUSTER + job("team-b", "forever", null, "gpu-1") + job("team-a", "finetune", "45m", null));
        CliRunner r = CliRunner.run("explain", "team-a/finetune", f.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("  estimated start: none — job team-b/forever, which it waits on, has no runtime estimate\n"),
                r.out());
        CliRunner json = CliRunner.run("explain", "team-a/finetune", f.toString(), "-o", "json");
        assertTrue(json.out().contains("\"estimatedStart\":{\"at\":null,\"in\":null,\"none\":\"waitsOnUnknownEnd\","
                + "\"waitsOn\":\"team-b/forever\""), json.out());
    }

    @Test
    void explainGivesTheTime() throws IOException {
        Path f = write(CLUSTER + job("team-a", "pretrain", "2h", "gpu-1") + job("team-a", "finetune", "45m", null));
        CliRunner r = CliRunner.run("explain", "team-a/finetune", f.toString(), "--cycle-seconds", "60");
        assertTrue(r.out().contains("  estimated start: in 1h58m (at simulated second 7200)\n"), r.out());
    }

    @Test
    void theReportHasAnEstimatedStartColumn() throws IOException {
        Path f = write(CLUSTER + job("team-a", "pretrain", "2h", "gpu-1") + job("team-a", "finetune", "45m", null));
        Path report = dir.resolve("r.html");
        CliRunner r = CliRunner.run("simulate", f.toString(), "--cycle-seconds", "10", "--report", report.toString());
        assertEquals(0, r.exit(), r.err());
        String html = Files.readString(report);
        assertTrue(html.contains("<th>estimated start</th>"), "header");
        assertTrue(html.contains("<td>in 1h59m (at simulated second 7200)</td>"), "cell");
    }

    @Test
    void aHorizonThatIsNoDurationIsAUsageError() throws IOException {
        Path f = write(CLUSTER);
        CliRunner r = CliRunner.run("simulate", f.toString(), "--estimate-horizon", "soon");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--estimate-horizon must be a duration such as 12h or 7d"), r.err());
    }

    @Test
    void runRefusesAnEstimateIntervalOrHorizonThatIsNoDuration() {
        CliRunner interval = CliRunner.run("run", "--estimate-interval", "soon");
        assertEquals(2, interval.exit());
        assertTrue(interval.err().contains("--estimate-interval: \"soon\" is not a duration"), interval.err());
        CliRunner horizon = CliRunner.run("run", "--estimate-horizon", "1.5d");
        assertEquals(2, horizon.exit());
        assertTrue(horizon.err().contains("--estimate-horizon must be a duration such as 12h or 7d"), horizon.err());
    }

    /** README.md shows explain's answer on deploy/examples/estimates as it is. */
    @Test
    void theReadmeShowsExplainAsItAnswers() throws IOException {
        CliRunner r = CliRunner.run("explain", "team-a/finetune", "deploy/examples/estimates", "--cycle-seconds", "10");
        assertEquals(0, r.exit(), r.err());
        String readme = Files.readString(Path.of("README.md"));
        String[] lines = r.out().split("\n");
        for (int i = 0; i < 6; i++) assertTrue(readme.contains(lines[i] + "\n"), "README.md lacks: " + lines[i]);
        assertEquals("  estimated start: in 1h59m (at simulated second 7200)", lines[5]);
    }
}
