package dev.arbiter.livebench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuSplitTest {
    @Test
    void threadsAreFiledByName() {
        assertEquals(CpuSplit.LOOP, CpuSplit.part("arbiter-scheduling-loop"));
        assertEquals(CpuSplit.LOOP, CpuSplit.part("arbiter-schedul")); // as /proc shows it: 15 characters
        assertEquals(CpuSplit.BINDERS, CpuSplit.part("arbiter-binder-7"));
        assertEquals(CpuSplit.WRITERS, CpuSplit.part("arbiter-events"));
        assertEquals(CpuSplit.WRITERS, CpuSplit.part("arbiter-status-2"));
        assertEquals(CpuSplit.STANDIN, CpuSplit.part("standin-3"));
        assertEquals(CpuSplit.CLIENT_IO, CpuSplit.part("vert.x-eventloop-thread-1"));
        assertEquals(CpuSplit.INFORMERS, CpuSplit.part("-1416836631-pool-3-thread-1"));
        assertEquals(CpuSplit.INFORMERS, CpuSplit.part("-1416836631-poo"));
        assertEquals(CpuSplit.INFORMERS, CpuSplit.part("1416836631-pool-3-thread-1"));
        assertEquals(CpuSplit.GC, CpuSplit.part("GC Thread#1"));
        assertEquals(CpuSplit.GC, CpuSplit.part("G1 Conc#0"));
        assertEquals(CpuSplit.JIT, CpuSplit.part("C2 CompilerThre"));
        assertEquals(CpuSplit.BENCH, CpuSplit.part("main"));
        assertEquals(CpuSplit.OTHER, CpuSplit.part("Signal Dispatcher"));
    }

    @Test
    void statLinesAreReadAfterTheCommandWhateverItContains() {
        // utime 250 and stime 50 ticks; the command has spaces and a parenthesis, as thread names may
        String stat = "4242 (C2 Compiler) x) S 1 4242 4242 0 -1 4194368 10 0 0 0 250 50 0 0 20 0 1 0 100 0 0";
        assertEquals(300, CpuSplit.ticks(stat));
    }

    @Test
    void thisProcessIsReadWithATotalCoveringItsParts() {
        long spin = System.nanoTime() + 200_000_000L;
        double x = 0;
        while (System.nanoTime() < spin) x += Math.sqrt(x + 1);
        Map<String, Double> now = CpuSplit.read(ProcessHandle.current().pid());
        double parts = 0;
        for (String p : CpuSplit.PARTS) parts += now.get(p);
        assertTrue(now.get("total") > 0.1, now + " " + x);
        assertEquals(now.get("total"), parts, 0.05, now.toString());
    }
}
