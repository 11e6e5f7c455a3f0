package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.arbiter.cli.CliRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code arbiter bench --apiserver} at its smallest: one command starts a control plane of its own, runs Arbiter and
 * kube-scheduler on it in turn, and prints both schedulers' figures and the ratios. Bad sizes are one line, exit 2.
 */
@Tag("real-cluster")
class ApiServerBenchRealTest {
    @TempDir
    Path dir;

    @Test
    void aBadSizeIsOneLine() {
        CliRunner r = CliRunner.run("bench", "--apiserver", "--apiserver-size", "200by3000");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("--apiserver-size must look like 200x3000"), r.err());
        CliRunner tooMany = CliRunner.run("bench", "--apiserver", "--apiserver-size", "2x500");
        assertEquals(2, tooMany.exit(), tooMany.err());
        assertTrue(tooMany.err().contains("2 nodes hold at most 220 pods"), tooMany.err());
        CliRunner workload = CliRunner.run("bench", "--apiserver", "--workloads", "cold,hot");
        assertEquals(2, workload.exit(), workload.err());
        assertTrue(workload.err().contains("--workloads takes cold, warm, gangs, ceiling; got hot"), workload.err());
        CliRunner scheduler = CliRunner.run("bench", "--apiserver", "--apiserver-schedulers", "volcano");
        assertEquals(2, scheduler.exit(), scheduler.err());
        assertTrue(scheduler.err().contains("--apiserver-schedulers takes kube-scheduler, arbiter; got volcano"), scheduler.err());
    }

    @Test
    void onlyTheChosenWorkloadAndSchedulerRun_andArbiterGetsTheGivenFlags() throws Exception {
        if (ClusterBinaries.find() == null) {
            if ("true".equals(System.getenv("CI"))) fail("no real cluster: " + ClusterBinaries.whyMissing());
            Assumptions.abort("no cluster binaries (" + ClusterBinaries.whyMissing() + ")");
        }
        CliRunner r = CliRunner.run("bench", "--apiserver", "--apiserver-size", "2x10", "--rounds", "1", "--workloads",
                "cold", "--apiserver-schedulers", "arbiter", "--arbiter-arg", "--no-warm-up", "--arbiter-jvm-arg=-Xss2m");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("| cold | 10 pods x 2 nodes | arbiter"), r.out());
        assertTrue(!r.out().contains("kube-scheduler (1 rounds)") && !r.out().contains("| warm |") && !r.out().contains("| ceiling |"),
                r.out());

        CliRunner refused = CliRunner.run("bench", "--apiserver", "--apiserver-size", "2x10", "--rounds", "1", "--workloads",
                "cold", "--apiserver-schedulers", "arbiter", "--arbiter-arg", "--period", "--arbiter-arg", "soon");
        assertEquals(1, refused.exit(), refused.out() + refused.err());
        assertTrue(refused.err().contains("the scheduler exited (2)"), "the flags reach arbiter run: " + refused.err());
    }

    @Test
    void bothSchedulersBindEveryPodAndTheTableComparesThem() throws Exception {
        if (ClusterBinaries.find() == null) {
            if ("true".equals(System.getenv("CI"))) fail("no real cluster: " + ClusterBinaries.whyMissing());
            Assumptions.abort("no cluster binaries (" + ClusterBinaries.whyMissing() + ")");
        }
        Path json = dir.resolve("bench.json");
        CliRunner r = CliRunner.run("bench", "--apiserver", "--apiserver-size", "4x40", "--rounds", "1", "--no-gangs",
                "--json", json.toString());
        assertEquals(0, r.exit(), r.err());
        for (String row : new String[] {"| cold | 40 pods x 4 nodes | kube-scheduler", "| cold | 40 pods x 4 nodes | arbiter",
                "| warm | 40 pods x 4 nodes | kube-scheduler", "| warm | 40 pods x 4 nodes | arbiter",
                "| ceiling | 40 pods x 4 nodes | round-robin client"}) {
            assertTrue(r.out().contains(row), () -> "no row " + row + " in\n" + r.out());
        }
        assertTrue(r.out().contains("- warm, 40 pods x 4 nodes: binds/s "), r.out());
        String figures = Files.readString(json);
        assertEquals(5, figures.split("\"workload\"").length - 1, figures);
        assertTrue(!figures.contains("\"bindsPerSecond\": null"), figures);
    }
}
