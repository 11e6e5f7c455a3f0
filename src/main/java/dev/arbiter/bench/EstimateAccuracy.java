package dev.arbiter.bench;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.forecast.Forecast;
import dev.arbiter.forecast.Forecaster;
import dev.arbiter.forecast.SnapshotTap;
import dev.arbiter.forecast.StartEstimate;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodSpec;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import dev.arbiter.synth.ClusterGenerator;
import dev.arbiter.synth.JobRuntimes;
import dev.arbiter.synth.SynthSpec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How good start-time estimates are ({@code arbiter bench --estimates}): a generated fleet whose jobs carry runtime
 * estimates and real runtimes with lognormal noise ({@link JobRuntimes}); the forecast made at time 0 from the
 * estimates, against a simulation with the real runtimes. Per fleet and noise level: how many pending jobs got an
 * estimate, how many none, the mean and median absolute error of the estimated starts (jobs with an estimate that the
 * simulation started), and how many of those the simulation never started.
 */
public final class EstimateAccuracy {
    /** One fleet at one noise level. */
    public record Fleet(int nodes, int pendingPods, long seed, double sigma) {}

    /**
     * {@code pending}: jobs pending at time 0; {@code estimated}: with an estimated start; {@code none}: without;
     * {@code compared}: estimated and started in the simulation; {@code neverStarted}: estimated but not started
     * within the simulation; errors in seconds over {@code compared}; {@code exact}: compared with error 0.
     */
    public record Row(Fleet fleet, int pending, int estimated, int none, int compared, int neverStarted,
                      double meanAbsErrorSeconds, double medianAbsErrorSeconds, int exact, double forecastSeconds,
                      double simulateSeconds, Map<StartEstimate.None, Integer> noneWhy, int noneStarted,
                      double meanStartSeconds) {
        /** e.g. {@code 6 (never 5, horizon 1)}. */
        public String noneText() {
            if (none == 0) return "0";
            List<String> parts = new ArrayList<>();
            noneWhy.forEach((why, n) -> parts.add(switch (why) {
                case WAITS_ON_UNKNOWN_END -> "unknown end";
                case BEYOND_HORIZON -> "horizon";
                default -> "never";
            } + " " + n));
            return none + " (" + String.join(", ", parts) + ")";
        }
    }

    private final RuleBook rules;
    private final long cycleSeconds;
    private final int maxCycles;
    private final PrintWriter progress;

    public EstimateAccuracy(Path rulesFolder, long cycleSeconds, int maxCycles, PrintWriter progress) {
        this.rules = RuleBook.load(rulesFolder);
        this.cycleSeconds = cycleSeconds;
        this.maxCycles = maxCycles;
        this.progress = progress;
    }

    public List<Row> run(List<Fleet> fleets) {
        List<Row> rows = new ArrayList<>();
        for (Fleet f : fleets) {
            rows.add(run(f));
            progress.println("estimates: " + line(rows.get(rows.size() - 1)));
            progress.flush();
        }
        return rows;
    }

    Row run(Fleet f) {
        // A fleet where everything is there at time 0 and nothing arrives later: the forecast's own world.
        Manifests m = JobRuntimes.withRuntimes(ClusterGenerator.generate(
                new SynthSpec(f.nodes(), f.pendingPods(), 10, f.seed(), 0.5, 16, 8)), f.seed(), f.sigma());
        SchedulerConfig config = SchedulerConfig.simulatorDefault();
        long t0 = System.nanoTime();
        ClusterSnapshot start = SnapshotTap.atStart(m, new Scheduler(rules, config), cycleSeconds);
        Forecast forecast = new Forecaster(rules, config, new Forecaster.Settings(Forecaster.Settings.WEEK, maxCycles,
                cycleSeconds, false)).forecast(start);
        long t1 = System.nanoTime();
        SimulationResult sim = new Simulator(new Scheduler(rules, config).keepingWorkingCopy().withoutTrace())
                .run(m, new Simulator.Options(maxCycles, cycleSeconds, false, true));
        long t2 = System.nanoTime();
        Map<String, String> jobOf = new HashMap<>();
        for (PodSpec p : m.pods()) jobOf.put(p.key(), p.jobId());
        Map<String, Long> started = new HashMap<>();
        for (CycleResult c : sim.cycles()) {
            for (Binding b : c.bindings()) started.putIfAbsent(jobOf.get(b.pod()), c.cycle() * cycleSeconds);
        }
        int estimated = 0, none = 0, compared = 0, never = 0, exact = 0;
        List<Long> errors = new ArrayList<>();
        Map<StartEstimate.None, Integer> noneWhy = new java.util.EnumMap<>(StartEstimate.None.class);
        int noneStarted = 0;
        double startSum = 0;
        for (StartEstimate e : forecast.estimates()) {
            if (!e.isKnown()) {
                none++;
                noneWhy.merge(e.none(), 1, Integer::sum);
                if (started.containsKey(e.job())) noneStarted++;
                continue;
            }
            estimated++;
            Long real = started.get(e.job());
            if (real == null) {
                never++;
                continue;
            }
            compared++;
            startSum += real;
            long err = Math.abs(real - e.at());
            if (err == 0) exact++;
            errors.add(err);
        }
        errors.sort(null);
        double mean = errors.stream().mapToLong(Long::longValue).average().orElse(0);
        double median = errors.isEmpty() ? 0 : errors.get(errors.size() / 2);
        return new Row(f, forecast.jobs().size(), estimated, none, compared, never, mean, median, exact,
                (t1 - t0) / 1e9, (t2 - t1) / 1e9, noneWhy, noneStarted, compared == 0 ? 0 : startSum / compared);
    }

    static String line(Row r) {
        return String.format(Locale.ROOT, "%dx%d seed %d sigma %.2f: %d pending, %d estimated, %s none (%d of them started);"
                        + " mean start %s; MAE %s, median %s over %d started (%d exact), %d never started; forecast %.1f s, simulation %.1f s",
                r.fleet().nodes(), r.fleet().pendingPods(), r.fleet().seed(), r.fleet().sigma(), r.pending(), r.estimated(),
                r.noneText(), r.noneStarted(), minutes(r.meanStartSeconds()), minutes(r.meanAbsErrorSeconds()), minutes(r.medianAbsErrorSeconds()), r.compared(), r.exact(),
                r.neverStarted(), r.forecastSeconds(), r.simulateSeconds());
    }

    private static String minutes(double seconds) {
        return String.format(Locale.ROOT, "%.1f min", seconds / 60);
    }

    public static String table(List<Row> rows) {
        List<String[]> t = new ArrayList<>();
        t.add(new String[] {"FLEET", "SEED", "SIGMA", "PENDING JOBS", "ESTIMATED", "NONE", "NONE BUT STARTED", "STARTED", "EXACT",
                "MEAN START", "MAE", "MEDIAN AE", "NEVER STARTED", "FORECAST", "SIMULATION"});
        for (Row r : rows) {
            t.add(new String[] {r.fleet().nodes() + "x" + r.fleet().pendingPods(), Long.toString(r.fleet().seed()),
                    String.format(Locale.ROOT, "%.2f", r.fleet().sigma()), Integer.toString(r.pending()),
                    Integer.toString(r.estimated()), r.noneText(), Integer.toString(r.noneStarted()),
                    Integer.toString(r.compared()), Integer.toString(r.exact()), minutes(r.meanStartSeconds()),
                    minutes(r.meanAbsErrorSeconds()), minutes(r.medianAbsErrorSeconds()),
                    Integer.toString(r.neverStarted()), String.format(Locale.ROOT, "%.1f s", r.forecastSeconds()),
                    String.format(Locale.ROOT, "%.1f s", r.simulateSeconds())});
        }
        return dev.arbiter.sim.TableReport.table(t);
    }
}
