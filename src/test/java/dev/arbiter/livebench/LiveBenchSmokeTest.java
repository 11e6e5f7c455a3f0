package dev.arbiter.livebench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code arbiter bench --live} end to end on a tiny size: the real {@code arbiter run} binds every pod of the three
 * workloads through the stand-in, and binds each exactly once (one binding request per pod: no double binding, no
 * retries). No timing is asserted: the build machine's speed is not the subject.
 */
class LiveBenchSmokeTest {
    @Test
    void everyPodIsBoundExactlyOnce(@TempDir Path dir) throws Exception {
        String[] r = bench(dir, "--no-warm-up");
        assertTrue(r[0].contains("\"stand-in\": "), r[0]);
        assertTrue(r[1].contains("scheduler threads+GC"), r[1]);
    }

    /** The scheduler in a JVM of its own: the same bindings, and the scheduler's own CPU per pod is measured. */
    @Test
    void theSchedulerCanRunInAProcessOfItsOwn(@TempDir Path dir) throws Exception {
        String[] r = bench(dir, "--no-warm-up", "--scheduler-process");
        String j = r[0];
        assertTrue(r[1].contains("scheduler JVM"), "measured in the scheduler's own process: " + r[1]);
        Matcher cpu = Pattern.compile("\"schedulerCpuMsPerPod\": ([0-9.]+)").matcher(j);
        for (int i = 0; i < 3; i++) {
            assertTrue(cpu.find(), j);
            assertTrue(Double.parseDouble(cpu.group(1)) > 0, j);
        }
    }

    /** After a warm-up (rounds of a fifth of each workload, then deleted) the measured pods are still bound once each. */
    @Test
    void aWarmUpLeavesTheMeasuredPodsToBeBoundOnce(@TempDir Path dir) throws Exception {
        bench(dir, "--warm-up-rounds", "2");
    }

    /** The JSON report and the progress lines. */
    private static String[] bench(Path dir, String... more) throws Exception {
        Path json = dir.resolve("live.json");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("bench", "--live", "--latency", "1ms",
                "--nodes", "60", "--pods", "200", "--burst", "50", "--gangs", "10", "--paced", "100", "--rate", "200",
                "--json", json.toString()));
        args.addAll(java.util.List.of(more));
        int code = Main.run(args.toArray(new String[0]), new PrintWriter(out), new PrintWriter(err));

        assertEquals(0, code, err.toString());
        String table = out.toString();
        assertTrue(table.contains("pods/s") && table.contains("p99 ms") && table.contains("req/pod"), table);
        String j = Files.readString(json);
        int[] pods = {200, 80, 100};
        Matcher w = Pattern.compile("\"name\": \"(\\w+)\", \"pods\": (\\d+), \"bound\": (\\d+).*?\"POST pods/binding\": (\\d+)")
                .matcher(j);
        for (int expected : pods) {
            assertTrue(w.find(), j);
            assertEquals(expected, Integer.parseInt(w.group(2)), w.group(1));
            assertEquals(expected, Integer.parseInt(w.group(3)), w.group(1) + ": every pod bound");
            assertEquals(expected, Integer.parseInt(w.group(4)), w.group(1) + ": one binding request per pod");
        }
        return new String[] {j, err.toString()};
    }
}
