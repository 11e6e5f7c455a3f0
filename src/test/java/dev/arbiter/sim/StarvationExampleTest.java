package dev.arbiter.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Runtimes;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 39's starvation scenario, {@code deploy/examples/starvation}: a 64-GPU gang (8 × 8 GPUs) arrives at 5 minutes
 * on a cluster of eight 8-GPU nodes that a stream of 2-GPU jobs (one a minute for six hours, 15 to 42 minutes each,
 * each with its estimate rounded up to 5 minutes) keeps about 90% busy. Under the shipped policy the gang waits until
 * the stream stops; with the reservation pack ({@code reservation.after: 10m}, backfill on) it starts within the hour,
 * and GPU utilisation (GPU-seconds used over GPU-seconds available, until the last pod ends) stays within 2 points of
 * the run without reservation. The figures are in docs/benchmarks.md.
 */
class StarvationExampleTest {
    private static final Path EXAMPLE = Path.of("deploy/examples/starvation");
    private static final int GPUS = 64;

    /** What one run gave: when the gang started (s), when the last pod ended (s), GPU-seconds used. */
    record Run(long gangStart, long end, long gpuSeconds, long gpuSecondsFirst6h) {
        double utilisation() {
            return gpuSeconds / (double) (GPUS * end);
        }

        double utilisationFirst6h() {
            return gpuSecondsFirst6h / (double) (GPUS * 6 * 3600);
        }
    }

    static Run run(RuleBook rules) {
        Manifests m = ManifestLoader.load(java.util.List.of(EXAMPLE));
        Map<String, PodSpec> pods = new HashMap<>();
        for (PodSpec p : m.pods()) pods.put(p.key(), p);
        SimulationResult r = new Simulator(new Scheduler(rules, SchedulerConfig.simulatorDefault()))
                .run(m, new Simulator.Options(5000, 1, false, true));
        assertTrue(r.stable(), "the run settles");
        long gangStart = -1, end = 0, used = 0, first6h = 0;
        for (CycleResult c : r.cycles()) {
            for (Binding b : c.bindings()) {
                PodSpec p = pods.get(b.pod());
                long runs = Runtimes.simulatedOf(p);
                long gpus = p.requests().milli("nvidia.com/gpu") / 1000;
                if (b.pod().startsWith("tenanta/big") && gangStart < 0) gangStart = c.cycle();
                end = Math.max(end, c.cycle() + runs);
                used += gpus * runs;
                first6h += gpus * Math.max(0, Math.min(c.cycle() + runs, 6 * 3600) - c.cycle());
            }
        }
        return new Run(gangStart, end, used, first6h);
    }

    @Test
    void withReservationTheGangStartsAndUtilisationStaysWithinTwoPoints() {
        Run without = run(RuleBook.load(Path.of("rules")));
        Run with = run(RuleBook.load(Path.of("deploy/policies/reservation")));
        System.out.printf("starvation: without reservation the gang starts at %ds, utilisation %.4f (first 6h %.4f), last end %ds;"
                        + " with reservation at %ds, utilisation %.4f (first 6h %.4f), last end %ds%n",
                without.gangStart(), without.utilisation(), without.utilisationFirst6h(), without.end(),
                with.gangStart(), with.utilisation(), with.utilisationFirst6h(), with.end());
        assertTrue(without.gangStart() > 6 * 3600, "today the gang waits until the stream stops: " + without);
        assertTrue(with.gangStart() < 300 + 3600, "with reservation it starts within the hour it arrives: " + with);
        assertTrue(with.utilisation() >= without.utilisation() - 0.02, "utilisation within 2 points: " + with + " vs " + without);
    }
}
