package dev.arbiter.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code arbiter bench} runs end to end in-process on a tiny size (the quick size's code path, cold start included)
 * and produces its table and JSON. No timing is asserted: the build machine's speed is not the subject.
 */
class BenchSmokeTest {
    @Test
    void theBenchPrintsItsTableAndWritesJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("bench.json");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"bench", "--size", "40x300", "--queues", "5", "--mix-reference", "--json", json.toString()},
                new PrintWriter(out), new PrintWriter(err));
        assertEquals(0, code, err.toString());
        String table = out.toString();
        assertTrue(table.contains("placed/s") && table.contains("ratio") && table.contains("heap/live MiB"), table);
        assertTrue(table.lines().anyMatch(l -> l.trim().startsWith("40 ")), table);
        assertTrue(err.toString().contains("bench: 40 nodes x 300 pending pods: first"), err.toString());
        assertTrue(table.contains("constraint mix (30% node affinity, 10% anti-affinity per hostname, 10% zone spread)"), table);
        assertTrue(err.toString().contains("engine and reference agree"), err.toString());
        assertTrue(err.toString().contains("(fresh session ") && !err.toString().contains("DISAGREES"), err.toString());
        String j = Files.readString(json);
        for (String field : new String[] {"\"nodes\":40", "\"engineFirstCycleMs\"", "\"placementsPerSecond\"",
                "\"referenceFirstCycleMs\"", "\"engineSteadyCycleMs\"", "\"freshSessionSteadyCycleMs\"", "\"gang1000CycleMs\"", "\"peakHeapMiB\"", "\"peakLiveHeapMiB\"",
                "\"coldStartMs\"", "\"firstCyclePhasesMs\"", "\"machine\"", "\"constraintMix\":{\"firstCycleMs\"",
                "\"shareOfPlainPlacementsPerSecond\"", "\"disagreements\":0,\"firstDisagreement\":null,\"firstCyclePhasesMs\""}) {
            assertTrue(j.contains(field), field + " missing from " + j);
        }
        java.util.regex.Matcher live = java.util.regex.Pattern.compile("\"peakLiveHeapMiB\":(\\d+)").matcher(j);
        assertTrue(live.find() && Long.parseLong(live.group(1)) > 0, "a live heap after a collection: " + j);
    }

    @Test
    void aMalformedSizeIsInvalidInput() {
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"bench", "--size", "big"}, new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(Main.INVALID_INPUT, code);
        assertTrue(err.toString().contains("--size"), err.toString());
    }
}
