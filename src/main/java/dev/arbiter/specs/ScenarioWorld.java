package dev.arbiter.specs;

import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One scenario's story: the objects its setup steps described, in batches of arrival, and the outcome of running the
 * real scheduler on them.
 *
 * <p>Arrival: the {@code Given} batch is present from cycle 0. Each later batch (the {@code When} steps between two
 * {@code Then}s) arrives one cycle after everything before it has settled: the world simulates the earlier batches
 * alone, notes the N cycles they took to settle, stamps the new batch with arrival cycle N+1, and simulates the whole
 * story again from the start (the simulator is deterministic, so the earlier part replays identically).
 *
 * <p>Time: a cycle is one simulated second (as in {@code arbiter simulate}). "A minute passes" delays the next batch by
 * sixty cycles after the state before it has settled; when no object follows, a clock pod that no scheduler answers
 * arrives then, so that the simulation runs until that time (a waiting job may be held back only by time, e.g. by a
 * minimum runtime, and the simulator stops as soon as a cycle changes nothing).
 *
 * <p>A workload described with "runs" must be running once its batch has settled; otherwise the setup is not what the
 * scenario says and the scenario fails at its first {@code Then}.
 */
final class ScenarioWorld {
    static final String DEFAULT_GPU = "nvidia.com/gpu";
    static final int MAX_CYCLES = 100;
    /** The simulator's default clock: {@code Simulator.run(manifests, maxCycles)} advances one second per cycle. */
    static final long SECONDS_PER_CYCLE = 1;
    private Path policyFolder;
    /** The candidate evaluated beside the policy on every cycle, acting on nothing ({@code run --shadow-rules}), or null. */
    private Path shadowFolder;
    private List<dev.arbiter.live.ShadowPolicy.Evaluation> shadowEvaluations = List.of();
    private SimulationResult withoutShadow;
    /** Settings the story changes ("the policy setting x.y is ..."), by dotted key, in the order it said them. */
    private final Map<String, String> settings = new java.util.LinkedHashMap<>();
    /** A pack per base folder and settings, written once per run: each compiles once. */
    private static final Map<String, Path> SETTINGS_PACKS = new java.util.concurrent.ConcurrentHashMap<>();
    private static final ThreadLocal<ScenarioWorld> CURRENT = new ThreadLocal<>();

    /**
     * One batch of arrivals: objects (a {@link SpecObject} or YAML text), the workloads said to be running, and the
     * cycle the batch arrives at (set when the batches before it have been simulated).
     */
    private static final class Batch {
        final List<Object> entries = new ArrayList<>();
        final List<String> mustRun = new ArrayList<>();
        long delaySeconds;
        int arrival;
    }

    /** A pod no scheduler answers, arriving with an otherwise empty batch so the simulation runs until then. */
    private record Clock(int number) implements SpecObject {
        @Override
        public List<Map<String, Object>> render(String gpu, int arrival) {
            Map<String, Object> pod = SpecObject.object("v1", "Pod", "clock-" + number, "arbiter-specs", arrival);
            pod.put("spec", Map.of("schedulerName", "arbiter-specs-clock",
                    "containers", List.of(Map.of("name", "clock", "image", "none"))));
            return List.of(pod);
        }
    }

    private final List<Batch> batches = new ArrayList<>(List.of(new Batch()));
    private String gpu = DEFAULT_GPU;
    private boolean gpuNamed;
    private boolean whenBatchOpen;
    private long pendingDelaySeconds;
    private boolean checked;
    private int nodes;
    /** Evicted pods come back pending, as their controllers (a Job, a training operator) recreate them. */
    private boolean recreateEvicted;
    private Outcome outcome;
    private Outcome lastSimulated;
    /** The policy and options of the last simulation ({@code whatif} steps ask on the same world). */
    private RuleBook lastRules;
    private Simulator.Options lastOptions;

    static void begin() {
        CURRENT.set(new ScenarioWorld());
    }

    static void end() {
        CURRENT.remove();
    }

    static ScenarioWorld current() {
        ScenarioWorld w = CURRENT.get();
        if (w == null) throw new IllegalStateException("no scenario is running (the Before hook in " + Hooks.class.getName() + " did not run)");
        return w;
    }

    // ---- setup ---------------------------------------------------------------------------------------------------

    /** Makes "GPUs" mean {@code resource}; must come before the first outcome step. */
    void nameGpus(String resource) {
        if (checked) throw new IllegalStateException("name the GPU resource before the first Then step");
        if (gpuNamed && !gpu.equals(resource)) {
            throw new IllegalStateException("GPUs were already named \"" + gpu + "\"; a scenario has one GPU resource");
        }
        gpu = resource;
        gpuNamed = true;
    }

    /** From now on evicted pods come back pending, recreated by their controllers: demand stays constant. */
    void recreateEvicted() {
        if (SpecListener.currentStep() != SpecListener.Kind.GIVEN || checked || batches.size() > 1) {
            throw new IllegalStateException("say that controllers recreate evicted pods in a Given step, before anything arrives later");
        }
        recreateEvicted = true;
        outcome = null;
    }

    /** {@code node-<n>}, continuing the numbering of nodes added so far. */
    String nextNodeName() {
        return "node-" + (++nodes);
    }

    void add(SpecObject object) {
        addTo(batch(describe(object)), object);
    }

    /** Adds a workload that the scenario says is running once its batch has settled. */
    void addRunning(Workload w) {
        Batch b = batch("workload");
        addTo(b, w);
        b.mustRun.add(w.namespace() + "/" + w.name());
    }

    private void addTo(Batch b, SpecObject object) {
        if (object instanceof PriorityClassDef && b != batches.get(0)) {
            throw new IllegalStateException("priority classes are part of the starting state: declare them in a Given step");
        }
        b.entries.add(object);
        outcome = null;
    }

    /**
     * Lets {@code seconds} of simulated time pass after everything so far has settled: whatever the next setup steps
     * add arrives that much later (and if nothing follows, the outcome is looked at that much later).
     */
    void pass(long seconds) {
        if (seconds <= 0) throw new IllegalArgumentException("time passes forwards: " + seconds + " seconds");
        if (SpecListener.currentStep() == SpecListener.Kind.THEN) {
            throw new IllegalStateException("a Then step checks the outcome; let time pass in a Given or When step");
        }
        pendingDelaySeconds += seconds;
        whenBatchOpen = false;
        outcome = null;
    }

    /** Adds the objects of a YAML text; invalid YAML fails here, with the text's own line numbers. */
    void addYaml(String text) {
        Manifests m = ManifestLoader.parse(text, "manifests");
        Batch b = batch("manifests");
        if (b != batches.get(0) && !m.priorityClasses().isEmpty()) {
            throw new IllegalStateException("priority classes are part of the starting state: declare them in a Given step");
        }
        b.entries.add(text);
        outcome = null;
    }

    private static String describe(SpecObject o) {
        return o.getClass().getSimpleName().replace("Def", "").toLowerCase();
    }

    /** The batch a setup step adds to, chosen by its keyword. */
    private Batch batch(String what) {
        switch (SpecListener.currentStep()) {
            case GIVEN -> {
                if (batches.size() > 1 || checked || pendingDelaySeconds > 0) {
                    throw new IllegalStateException("a Given step describes the starting state, so it must come before"
                            + " time passes and before any When or Then step; use When for what arrives later");
                }
                return batches.get(0);
            }
            case WHEN -> {
                if (!whenBatchOpen) openBatch();
                return batches.get(batches.size() - 1);
            }
            default -> throw new IllegalStateException("a Then step checks the outcome; describe the " + what
                    + " in a Given or When step");
        }
    }

    /** Starts a batch of later arrivals, which takes the time that has passed since the last one. */
    private void openBatch() {
        Batch b = new Batch();
        b.delaySeconds = pendingDelaySeconds;
        pendingDelaySeconds = 0;
        batches.add(b);
        whenBatchOpen = true;
    }

    // ---- outcome -------------------------------------------------------------------------------------------------

    /** True once an outcome step has run (a scenario without one cannot fail). */
    boolean checked() {
        return checked;
    }

    /** The policy the story's last simulation ran with (after {@link #outcome()}). */
    RuleBook rulesUsed() {
        return lastRules;
    }

    /** The options the story's last simulation ran with (after {@link #outcome()}). */
    Simulator.Options optionsUsed() {
        return lastOptions;
    }

    /** The last cycle's snapshot of the story and its rules: where start-time estimates are forecast from. */
    private dev.arbiter.model.ClusterSnapshot lastSnapshot;
    private dev.arbiter.forecast.Forecast forecast;

    /**
     * The start-time estimates of the jobs pending once the story has settled, forecast from its last cycle
     * (docs/estimates.md), on the scenario's clock.
     */
    dev.arbiter.forecast.Forecast forecast() {
        outcome();
        if (forecast == null) {
            forecast = new dev.arbiter.forecast.Forecaster(lastRules, SchedulerConfig.simulatorDefault(),
                    dev.arbiter.forecast.Forecaster.Settings.defaults(SECONDS_PER_CYCLE)).forecast(lastSnapshot);
        }
        return forecast;
    }

    /** The last simulation run, even one that failed a check, or null; for reports after a failure. */
    Outcome lastSimulated() {
        return lastSimulated;
    }

    /**
     * Runs this scenario against another policy pack than the one under test: {@code folder} is relative to
     * {@code $ARBITER_HOME} when set, else to the working directory (e.g. {@code deploy/policies/capacity}).
     */
    void usePolicy(String folder) {
        String home = System.getenv("ARBITER_HOME");
        Path p = Path.of(folder);
        policyFolder = p.isAbsolute() || home == null || home.isBlank() ? p : Path.of(home).resolve(p);
        outcome = null;
    }

    /**
     * Evaluates the policy folder {@code folder} (as {@link #usePolicy} resolves it) as a shadow on every cycle of the
     * story's last simulation, as {@code arbiter run --shadow-rules} does on a live cluster.
     */
    void useShadow(String folder) {
        String home = System.getenv("ARBITER_HOME");
        Path p = Path.of(folder);
        shadowFolder = p.isAbsolute() || home == null || home.isBlank() ? p : Path.of(home).resolve(p);
        outcome = null;
    }

    /** A shadow policy: the policy under test plus rule {@code rule}, which throws on every cycle that has a queue. */
    void useFailingShadow(String rule) {
        Path base = (policyFolder == null ? SpecRules.folder() : policyFolder).toAbsolutePath().normalize();
        shadowFolder = SETTINGS_PACKS.computeIfAbsent(base + "\nfailing shadow " + rule, k -> {
            try {
                Path pack = java.nio.file.Files.createTempDirectory("arbiter-spec-shadow");
                pack.toFile().deleteOnExit();
                java.nio.file.Files.writeString(pack.resolve("pack.yaml"), "extends: " + base + "\n");
                java.nio.file.Files.writeString(pack.resolve("failing.drl"), """
                        package arbiter.policy;
                        import dev.arbiter.facts.QueueFact;
                        rule "%s"
                        ruleflow-group "policy"
                        when
                            QueueFact()
                        then
                            throw new IllegalStateException("the candidate fails");
                        end
                        """.formatted(rule.replace("\"", "'")));
                pack.resolve("pack.yaml").toFile().deleteOnExit();
                pack.resolve("failing.drl").toFile().deleteOnExit();
                return pack;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        outcome = null;
    }

    /** The extended resource the scenario's GPUs are. */
    String gpu() {
        return gpu;
    }

    /** What the shadow policy found on each cycle of the story's last simulation (empty without a shadow). */
    List<dev.arbiter.live.ShadowPolicy.Evaluation> shadowEvaluations() {
        outcome();
        return shadowEvaluations;
    }

    /** The story's last simulation run again without the shadow policy, or null when there is none. */
    SimulationResult withoutShadow() {
        outcome();
        return withoutShadow;
    }

    /** A setting of {@code policy.yaml}, by its dotted key ({@code victims.gangBelowFloor}), for this scenario. */
    void useSetting(String key, String value) {
        if (!key.matches("[A-Za-z]+\\.[A-Za-z]+")) {
            throw new IllegalArgumentException("a policy setting is named section.key, e.g. victims.gangBelowFloor, not \"" + key + "\"");
        }
        settings.put(key, value);
        outcome = null;
    }

    /** {@code base} overlaid with the scenario's settings: a pack folder whose policy.yaml states only them. */
    private Path withSettings(Path base) {
        StringBuilder yaml = new StringBuilder();
        Map<String, List<String>> bySection = new java.util.LinkedHashMap<>();
        settings.forEach((k, v) -> bySection.computeIfAbsent(k.substring(0, k.indexOf('.')), x -> new ArrayList<>())
                .add(k.substring(k.indexOf('.') + 1) + ": " + v));
        bySection.forEach((section, lines) -> {
            yaml.append(section).append(":\n");
            for (String l : lines) yaml.append("  ").append(l).append('\n');
        });
        Path abs = base.toAbsolutePath().normalize();
        return SETTINGS_PACKS.computeIfAbsent(abs + "\n" + yaml, k -> {
            try {
                Path pack = java.nio.file.Files.createTempDirectory("arbiter-spec-settings");
                pack.toFile().deleteOnExit();
                java.nio.file.Files.writeString(pack.resolve("pack.yaml"), "extends: " + abs + "\n");
                java.nio.file.Files.writeString(pack.resolve("policy.yaml"), yaml);
                pack.resolve("pack.yaml").toFile().deleteOnExit();
                pack.resolve("policy.yaml").toFile().deleteOnExit();
                return pack;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /** The outcome of the whole story so far; simulated once, then reused until the story grows. */
    Outcome outcome() {
        if (pendingDelaySeconds > 0) {
            openBatch();
            batches.get(batches.size() - 1).entries.add(new Clock(batches.size() - 1));
        }
        checked = true;
        whenBatchOpen = false;
        if (outcome != null) return outcome;
        Path folder = policyFolder == null ? SpecRules.folder() : policyFolder;
        RuleBook rules = SpecRules.load(settings.isEmpty() ? folder : withSettings(folder));
        int settled = -1;
        Outcome o = null;
        for (int i = 0; i < batches.size(); i++) {
            Batch b = batches.get(i);
            b.arrival = i == 0 ? 0 : Math.toIntExact(settled + 1 + b.delaySeconds / SECONDS_PER_CYCLE);
            String yaml = render(i);
            Manifests m = ManifestLoader.parse(yaml, "scenario");
            // Time passes only when the story says so ("a minute passes"): do not follow the policy's wake-ups.
            // Each pod that ends by itself, or arrives later than its batch ("one every minute"), may wake one cycle more.
            int timed = 0;
            for (dev.arbiter.model.PodSpec p : m.pods()) {
                if (dev.arbiter.model.Runtimes.simulatedOf(p) >= 0) timed++;
                if (p.arrivalCycle() > b.arrival) timed++;
            }
            Simulator.Options options = new Simulator.Options(b.arrival + MAX_CYCLES + timed, SECONDS_PER_CYCLE, recreateEvicted, false);
            dev.arbiter.forecast.SnapshotTap tap = new dev.arbiter.forecast.SnapshotTap();
            SimulationResult r;
            if (shadowFolder != null && i == batches.size() - 1) {
                // The candidate sees each cycle's snapshot and result after the cycle, as on a live cluster; the
                // simulator acts on the policy's decisions only.
                List<dev.arbiter.live.ShadowPolicy.Evaluation> evaluations = new ArrayList<>();
                try (dev.arbiter.live.ShadowPolicy shadow = new dev.arbiter.live.ShadowPolicy(shadowFolder.toString(),
                        SpecRules.load(shadowFolder), SchedulerConfig.simulatorDefault(), false,
                        new dev.arbiter.live.Metrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()),
                        java.time.Duration.ofHours(1)).quiet()) {
                    r = new Simulator(new Scheduler(rules, SchedulerConfig.simulatorDefault())).run(m, options,
                            (snapshot, result) -> {
                                tap.accept(snapshot, result);
                                evaluations.add(shadow.evaluateNow(result.cycle(), snapshot, result));
                            });
                }
                shadowEvaluations = List.copyOf(evaluations);
                withoutShadow = new Simulator(new Scheduler(rules, SchedulerConfig.simulatorDefault())).run(m, options);
            } else {
                r = new Simulator(new Scheduler(rules, SchedulerConfig.simulatorDefault())).run(m, options, tap);
            }
            lastSnapshot = tap.last();
            forecast = null;
            if (Boolean.getBoolean(COMPARE_KEPT_SESSION)) sameWithKeptSession(rules, m, options, r);
            o = new Outcome(m, r, gpu);
            lastSimulated = o;
            lastRules = rules;
            lastOptions = options;
            if (!r.stable()) {
                throw new AssertionError("the cluster did not settle within " + MAX_CYCLES + " cycles of the last arrival; "
                        + o.describeEvictions());
            }
            checkRunning(o, b, i);
            settled = r.lastCycle() == null ? 0 : r.lastCycle().cycle();
        }
        outcome = o;
        return o;
    }

    /**
     * With {@value #COMPARE_KEPT_SESSION} set (the build sets it), the simulation again with one rules session and one
     * working copy kept across its cycles (as {@code run} has them): any decision that differs from the fresh cycles'
     * fails the scenario.
     */
    private static void sameWithKeptSession(RuleBook rules, Manifests m, Simulator.Options options, SimulationResult fresh) {
        Scheduler kept = new Scheduler(rules, SchedulerConfig.simulatorDefault()).keepingSession().keepingWorkingCopy();
        try {
            SimulationResult k = new Simulator(kept).run(m, options);
            String diff = dev.arbiter.sim.KeptSessionCheck.firstDifference(fresh, k);
            if (diff != null) throw new AssertionError("a rules session and working copy kept across cycles decided differently: " + diff);
        } finally {
            kept.dropSession();
        }
    }

    static final String COMPARE_KEPT_SESSION = "arbiter.specs.compareKeptSession";

    /** YAML for batches 0..{@code last}, each stamped with its arrival cycle (YAML of the Given batch as written). */
    private String render(int last) {
        StringBuilder yaml = new StringBuilder();
        for (Batch b : batches.subList(0, last + 1)) {
            for (Object e : b.entries) {
                String text = e instanceof SpecObject so ? ManifestYaml.dump(so.render(gpu, b.arrival))
                        : b.arrival == 0 ? (String) e : ManifestYaml.stamp((String) e, b.arrival);
                yaml.append("\n---\n").append(text);
            }
        }
        return yaml.toString();
    }

    private static void checkRunning(Outcome o, Batch b, int index) {
        for (String name : b.mustRun) {
            Outcome.Found w = o.workload(name);
            for (String g : w.podGroups()) {
                PodGroupStatus s = o.status(g);
                if (!s.phase().equals("Running")) {
                    throw new AssertionError("the setup is not what the scenario says: \"" + w.name() + "\" should be"
                            + " running once the " + (index == 0 ? "Given" : "When") + " steps have settled, but "
                            + o.describe(w) + "\n(say \"submits\" for a workload that may wait)");
                }
            }
        }
    }
}
