package dev.arbiter.livebench;

import dev.arbiter.json.JsonWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The live end-to-end benchmark ({@code arbiter bench --live}): the real {@code arbiter run}, in this JVM or in a JVM of
 * its own ({@link Options#separateProcess}), against a
 * {@link StandInApiServer} with a set round-trip latency, fed the way kube-scheduler's scheduler_perf feeds its
 * scheduler. For each latency, on a fresh stand-in holding {@code nodes} nodes (8 GPUs each) and a fresh scheduler:
 * <ol>
 *   <li><b>burst</b>: {@code pods} single pods (1 GPU each) created in bursts of {@code burst};</li>
 *   <li><b>gangs</b>: {@code gangs} PodGroups of {@code gangSize} (minMember = size), each with its pods, created in
 *       bursts of {@code burst} pods;</li>
 *   <li><b>paced</b>: {@code pacedPods} single pods created at a steady {@code rate} per second, for the latency a
 *       pod sees when the scheduler keeps up.</li>
 * </ol>
 * Each workload waits until all its pods are bound (or {@code timeout}). Reported per workload: pods per second from
 * the first creation to the last binding, the creation-to-binding latency (p50, p99, max; measured by the stand-in
 * when it stores the pod and when it applies the binding), the API requests the scheduler sent per pod, by kind, and
 * the CPU used meanwhile: in all, by the scheduler's JVM per pod, and by part ({@link CpuSplit}: the scheduling loop,
 * binders, informers, the stand-in, GC, JIT, ...): figures that mean more than wall-clock time on a shared machine.
 *
 * <p>Before the measured workloads, {@link Options#warmUpRounds} rounds of a fifth of each workload run on the same
 * stand-in and scheduler (for the JIT), unreported, and are deleted. Objects are created inside the stand-in (as if by
 * a client whose requests cost nothing), so the creator's own requests neither load the machine nor count; the
 * scheduler's requests all go through HTTP with the latency.
 */
public final class LiveBenchmark {
    /** What to run. */
    public record Options(List<Duration> latencies, int nodes, int pods, int burst, int gangs, int gangSize,
                          int pacedPods, double rate, Path rules, int binders, Duration timeout, int warmUpRounds,
                          boolean separateProcess) {
        /** The matrix: 0, 2 and 10 ms; 5,000 nodes; 10,000 pods in bursts of 1,000; 1,000 gangs of 8; 1,250 pods/s paced. */
        public static Options standard(Path rules) {
            return new Options(List.of(Duration.ZERO, Duration.ofMillis(2), Duration.ofMillis(10)), 5000, 10_000, 1000,
                    1000, 8, 10_000, 1250, rules, 32, Duration.ofMinutes(3), 1, false);
        }

        /** A small, quick run (a test and a smoke check): 300 nodes, 1,000 pods, 50 gangs of 8, 500 paced at 500/s. */
        public static Options quick(Path rules) {
            return new Options(List.of(Duration.ofMillis(2)), 300, 1000, 250, 50, 8, 500, 500, rules, 32, Duration.ofMinutes(2),
                    0, false);
        }
    }

    /** Starts {@code arbiter run} with these arguments on the calling thread and returns its exit code. */
    public interface Runner {
        int run(String[] args);
    }

    /**
     * One workload's figures. Times in milliseconds. {@code cpuSeconds} is the CPU of every process taking part (this
     * JVM, and the scheduler's when it runs apart); {@code schedulerCpuSeconds} what the scheduler's JVM used: all of
     * it when it runs apart, else this JVM's less the stand-in's and the bench's threads (its GC and JIT then also
     * include the stand-in's share). {@code cpuSplit} is the CPU seconds by {@linkplain CpuSplit part}.
     */
    public record Workload(String name, int pods, int bound, double seconds, double podsPerSecond, double p50Ms,
                           double p99Ms, double maxMs, Map<String, Long> requests, double cpuSeconds, double loopCpuSeconds,
                           double schedulerCpuSeconds, Map<String, Double> cpuSplit) {
        /** The scheduler JVM's CPU milliseconds per bound pod: what a production deployment pays per pod. */
        public double schedulerCpuMsPerPod() {
            return bound == 0 ? 0 : schedulerCpuSeconds * 1000 / bound;
        }

        public double requestsPerPod() {
            long total = 0;
            for (long n : requests.values()) total += n;
            return bound == 0 ? 0 : total / (double) bound;
        }

        public boolean complete() {
            return bound == pods;
        }
    }

    /** One latency's workloads, with the machine's load average when it finished. */
    public record Row(Duration latency, List<Workload> workloads, double loadAverage) {}

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Options options;
    private final Runner runner;
    private final String mainClass;
    private final PrintWriter progress;
    /** The process the scheduler runs in: this one, or its child while one runs. */
    private volatile long schedulerPid = ProcessHandle.current().pid();

    /** A bench that runs the scheduler in this JVM through {@code runner}. */
    public LiveBenchmark(Options options, Runner runner, PrintWriter progress) {
        this(options, runner, null, progress);
    }

    /**
     * A bench that runs the scheduler through {@code runner} in this JVM, or, with {@link Options#separateProcess},
     * as {@code mainClass run ...} in a child JVM on the same class path (its JVM options: this JVM's heap and GC
     * options, plus {@code -Darbiter.livebench.childJvmArgs}, split at spaces).
     */
    public LiveBenchmark(Options options, Runner runner, Class<?> mainClass, PrintWriter progress) {
        if (options.separateProcess() && mainClass == null) throw new IllegalArgumentException("a separate process needs a main class");
        this.options = options;
        this.runner = runner;
        this.mainClass = mainClass == null ? null : mainClass.getName();
        this.progress = progress;
    }

    public List<Row> run() throws IOException, InterruptedException {
        List<Row> rows = new ArrayList<>();
        for (Duration latency : options.latencies()) rows.add(runAt(latency));
        return rows;
    }

    private Row runAt(Duration latency) throws IOException, InterruptedException {
        progress.printf(Locale.ROOT, "live bench at %d ms round trip: %d nodes%n", latency.toMillis(), options.nodes());
        progress.flush();
        try (StandInApiServer api = StandInApiServer.start(latency)) {
            for (int i = 0; i < options.nodes(); i++) api.create("nodes", node(i));
            Map<String, Long> boundAt = new ConcurrentHashMap<>();
            api.onBinding(b -> boundAt.put(b.pod(), b.boundNanos()));
            Path kubeconfig = Files.createTempFile("arbiter-bench", ".kubeconfig");
            Files.writeString(kubeconfig, api.kubeconfig());
            int port = freePort();
            AtomicInteger exit = new AtomicInteger(-1);
            String[] args = {"run", "--kubeconfig", kubeconfig.toString(),
                    "--rules", options.rules().toString(), "--scheduler-name", "arbiter", "--period", "1s",
                    "--metrics-port", Integer.toString(port), "--metrics-bind-address", "127.0.0.1",
                    "--binders", Integer.toString(options.binders())};
            Path log = options.separateProcess() ? Files.createTempFile("arbiter-bench-run", ".log") : null;
            Thread run = new Thread(() -> exit.set(options.separateProcess() ? runChild(args, log) : runner.run(args)),
                    "arbiter-run (bench)");
            run.start();
            try {
                awaitReady(port, run);
                for (int round = 1; round <= options.warmUpRounds(); round++) warmUp(api, boundAt, round);
                List<Workload> workloads = new ArrayList<>();
                workloads.add(measure(api, "burst", boundAt, () -> createBursts(api, "burst", options.pods())));
                workloads.add(measure(api, "gangs", boundAt, () -> createGangs(api, "gang", options.gangs())));
                workloads.add(measure(api, "paced", boundAt, () -> createPaced(api, "paced", options.pacedPods())));
                double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
                return new Row(latency, workloads, load);
            } finally {
                run.interrupt();
                run.join(60_000);
                Files.deleteIfExists(kubeconfig);
                if (exit.get() != 0 && !run.isAlive()) {
                    progress.println("  arbiter run exited " + exit.get());
                    if (log != null) progress.println(tail(log, 20));
                }
                if (log != null) Files.deleteIfExists(log);
            }
        }
    }

    /**
     * One round of the JIT's warm-up, unreported, on the same stand-in and scheduler (which may be a fresh child JVM):
     * the three workloads at a fifth of the size, after which their pods and PodGroups are deleted, so the measured
     * workloads find the nodes empty; then two seconds for the scheduler to take in the deletions. A long-running
     * scheduler has compiled its hot code long since; more rounds bring the measurement closer to that.
     */
    private void warmUp(StandInApiServer api, Map<String, Long> boundAt, int round) throws InterruptedException {
        progress.printf(Locale.ROOT, "  warm-up %d/%d (not reported): a fifth of each workload%n", round, options.warmUpRounds());
        progress.flush();
        String prefix = "warm" + round + "-";
        List<String> pods = new ArrayList<>();
        pods.addAll(createBursts(api, prefix + "burst", Math.max(1, options.pods() / 5)));
        pods.addAll(createGangs(api, prefix + "gang", options.gangs() / 5));
        pods.addAll(createPaced(api, prefix + "paced", options.pacedPods() / 5));
        long deadline = System.nanoTime() + options.timeout().toNanos();
        while (System.nanoTime() < deadline && !allBound(pods, boundAt)) Thread.sleep(20);
        for (String p : pods) {
            api.delete("pods", p);
            createdAt.remove(p);
            boundAt.remove(p);
        }
        for (int g = 0; g < options.gangs() / 5; g++) api.delete("podgroups", "bench/" + prefix + "gang-" + g);
        Thread.sleep(2000);
    }

    /**
     * Runs {@code mainClass args} in a child JVM and waits for it; the child's output goes to {@code log}. Interrupted,
     * it sends SIGTERM (as the kubelet does) and waits up to a minute before killing it.
     */
    private int runChild(String[] args, Path log) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("-Xm") || a.startsWith("-Xs") || a.startsWith("-XX:+Use") || a.startsWith("-XX:Max")) cmd.add(a);
        }
        String extra = System.getProperty("arbiter.livebench.childJvmArgs", "").trim();
        if (!extra.isEmpty()) cmd.addAll(List.of(extra.split("\\s+")));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            progress.println("  cannot start the scheduler's JVM: " + e.getMessage());
            return -1;
        }
        schedulerPid = p.pid();
        try {
            return p.waitFor();
        } catch (InterruptedException stop) {
            p.destroy();
            try {
                if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
            } catch (InterruptedException again) {
                p.destroyForcibly();
            }
            return p.isAlive() ? -1 : p.exitValue();
        } finally {
            schedulerPid = ProcessHandle.current().pid();
        }
    }

    private static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private interface Creation {
        List<String> create() throws InterruptedException;
    }

    /** Runs one workload: creates its pods, waits until all are bound, measures. */
    private Workload measure(StandInApiServer api, String name, Map<String, Long> boundAt, Creation creation)
            throws InterruptedException {
        Map<String, Long> before = api.requestCounts();
        long self = ProcessHandle.current().pid();
        long scheduler = schedulerPid;
        boolean apart = scheduler != self;
        Map<String, Double> own0 = CpuSplit.read(self);
        Map<String, Double> sched0 = apart ? CpuSplit.read(scheduler) : own0;
        long start = System.nanoTime();
        List<String> pods = creation.create();
        long deadline = start + options.timeout().toNanos();
        while (System.nanoTime() < deadline && !allBound(pods, boundAt)) Thread.sleep(20);
        Map<String, Long> after = api.requestCounts();
        Map<String, Double> own = CpuSplit.between(own0, CpuSplit.read(self));
        Map<String, Double> sched = apart ? CpuSplit.between(sched0, CpuSplit.read(scheduler)) : own;
        Map<String, Double> split = new LinkedHashMap<>();
        double cpu;
        double schedulerCpu;
        if (apart) {
            // The scheduler's JVM is all scheduler; this one is the stand-in and the bench (its GC and JIT included).
            sched.forEach((k, v) -> split.put(k, v));
            split.merge(CpuSplit.OTHER, split.get(CpuSplit.BENCH), Double::sum); // the child's main thread
            split.put(CpuSplit.STANDIN, own.get("total") - own.get(CpuSplit.BENCH));
            split.put(CpuSplit.BENCH, own.get(CpuSplit.BENCH));
            cpu = own.get("total") + sched.get("total");
            schedulerCpu = sched.get("total");
        } else {
            split.putAll(own);
            cpu = own.get("total");
            schedulerCpu = cpu - own.get(CpuSplit.STANDIN) - own.get(CpuSplit.BENCH);
        }
        split.remove("total");
        double loopCpu = split.get(CpuSplit.LOOP);
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        List<Double> latencies = new ArrayList<>();
        for (String p : pods) {
            Long bound = boundAt.get(p);
            Long created = createdAt.get(p);
            if (created != null) first = Math.min(first, created);
            if (bound == null || created == null) continue;
            last = Math.max(last, bound);
            latencies.add((bound - created) / 1e6);
        }
        double seconds = latencies.isEmpty() ? 0 : (last - first) / 1e9;
        double[] sorted = latencies.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        Workload w = new Workload(name, pods.size(), latencies.size(), seconds,
                seconds == 0 ? 0 : latencies.size() / seconds, percentile(sorted, 50), percentile(sorted, 99),
                sorted.length == 0 ? 0 : sorted[sorted.length - 1], diff(before, after), cpu, loopCpu, schedulerCpu, split);
        progress.printf(Locale.ROOT, "  %-6s %6d/%d bound in %6.2f s: %7.0f pods/s, p50 %6.0f ms, p99 %6.0f ms, %.2f requests/pod,"
                        + " CPU %.1f s (scheduler %s %.2f ms/pod; %s)%n", name, w.bound(), w.pods(), w.seconds(),
                w.podsPerSecond(), w.p50Ms(), w.p99Ms(), w.requestsPerPod(), cpu, apart ? "JVM" : "threads+GC",
                w.schedulerCpuMsPerPod(), CpuSplit.describe(split));
        progress.flush();
        return w;
    }

    /** When the bench created each pod (System.nanoTime, just before the stand-in stored it). */
    private final Map<String, Long> createdAt = new ConcurrentHashMap<>();

    private void createPod(StandInApiServer api, String ns, String name, String group) {
        createdAt.put(ns + "/" + name, System.nanoTime());
        api.create("pods", pod(ns, name, group));
    }

    private List<String> createBursts(StandInApiServer api, String prefix, int count) throws InterruptedException {
        List<String> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            createPod(api, "bench", prefix + "-" + i, null);
            keys.add("bench/" + prefix + "-" + i);
            if ((i + 1) % options.burst() == 0) Thread.sleep(100);
        }
        return keys;
    }

    private List<String> createGangs(StandInApiServer api, String prefix, int gangs) throws InterruptedException {
        List<String> keys = new ArrayList<>();
        int inBurst = 0;
        for (int g = 0; g < gangs; g++) {
            String group = prefix + "-" + g;
            api.create("podgroups", podGroup("bench", group, options.gangSize()));
            for (int m = 0; m < options.gangSize(); m++) {
                String name = group + "-" + m;
                createPod(api, "bench", name, group);
                keys.add("bench/" + name);
                if (++inBurst == options.burst()) {
                    inBurst = 0;
                    Thread.sleep(100);
                }
            }
        }
        return keys;
    }

    /** Pods at a steady rate: every 10 ms, as many as the rate owes by then. */
    private List<String> createPaced(StandInApiServer api, String prefix, int count) throws InterruptedException {
        List<String> keys = new ArrayList<>(count);
        long start = System.nanoTime();
        int made = 0;
        while (made < count) {
            double elapsed = (System.nanoTime() - start) / 1e9;
            int owed = (int) Math.min(count, Math.floor(elapsed * options.rate()) + 1);
            for (; made < owed; made++) {
                createPod(api, "bench", prefix + "-" + made, null);
                keys.add("bench/" + prefix + "-" + made);
            }
            Thread.sleep(10);
        }
        return keys;
    }

    private static boolean allBound(List<String> pods, Map<String, Long> boundAt) {
        for (int i = pods.size() - 1; i >= 0; i--) if (!boundAt.containsKey(pods.get(i))) return false;
        return true;
    }

    private static Map<String, Long> diff(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> out = new TreeMap<>();
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d > 0) out.put(k, d);
        });
        return out;
    }

    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) return 0;
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static void awaitReady(int port, Thread run) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            if (!run.isAlive()) throw new IllegalStateException("arbiter run ended before it was ready");
            try {
                HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("arbiter run was not ready within 2 minutes");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    // ---- objects ----------------------------------------------------------------------------------------------

    private static Map<String, Object> node(int i) {
        String name = String.format(Locale.ROOT, "node-%05d", i);
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("name", name);
        meta.put("labels", Map.of("kubernetes.io/hostname", name));
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("metadata", meta);
        o.put("status", Map.of("allocatable", Map.of("cpu", "64", "memory", "512Gi", "pods", "110", "nvidia.com/gpu", "8"),
                "capacity", Map.of("cpu", "64", "memory", "512Gi", "pods", "110", "nvidia.com/gpu", "8")));
        return o;
    }

    private static Map<String, Object> pod(String ns, String name, String group) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("namespace", ns);
        meta.put("name", name);
        if (group != null) meta.put("annotations", Map.of("scheduling.k8s.io/group-name", group));
        Map<String, Object> container = new LinkedHashMap<>();
        container.put("name", "main");
        container.put("image", "registry.example.com/train:1");
        container.put("resources", Map.of("requests", Map.of("cpu", "4", "memory", "16Gi", "nvidia.com/gpu", "1"),
                "limits", Map.of("nvidia.com/gpu", "1")));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("schedulerName", "arbiter");
        spec.put("containers", List.of(container));
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("metadata", meta);
        o.put("spec", spec);
        o.put("status", Map.of("phase", "Pending"));
        return o;
    }

    private static Map<String, Object> podGroup(String ns, String name, int minMember) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("apiVersion", "scheduling.volcano.sh/v1beta1");
        o.put("kind", "PodGroup");
        o.put("metadata", Map.of("namespace", ns, "name", name));
        o.put("spec", Map.of("minMember", minMember, "queue", "default"));
        return o;
    }

    // ---- report -----------------------------------------------------------------------------------------------

    /** The results as a table, one line per latency and workload. */
    public static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "%7s %-6s %7s %8s %8s %8s %8s %8s %8s %8s %9s %9s  %s%n", "rtt ms", "load", "pods", "bound", "s", "pods/s",
                "p50 ms", "p99 ms", "req/pod", "cpu s", "loop cpu", "sched ms", "requests by kind"));
        for (Row r : rows) {
            for (Workload w : r.workloads()) {
                sb.append(String.format(Locale.ROOT, "%7d %-6s %7d %8d %8.2f %8.0f %8.0f %8.0f %8.2f %8.1f %9.1f %9.2f  %s%n",
                        r.latency().toMillis(), w.name(), w.pods(), w.bound(), w.seconds(), w.podsPerSecond(), w.p50Ms(),
                        w.p99Ms(), w.requestsPerPod(), w.cpuSeconds(), w.loopCpuSeconds(), w.schedulerCpuMsPerPod(),
                        w.requests()));
            }
            sb.append("        CPU seconds by part:\n");
            for (Workload w : r.workloads()) {
                sb.append(String.format(Locale.ROOT, "        %-6s %s%n", w.name(), CpuSplit.describe(w.cpuSplit())));
            }
            sb.append(String.format(Locale.ROOT, "        (load average %.1f after this latency)%n", r.loadAverage()));
        }
        return sb.toString();
    }

    /** The results as JSON. */
    public static String json(List<Row> rows, String machine) {
        JsonWriter j = JsonWriter.spaced().startObject().field("machine", machine).name("rows").startArray();
        for (Row r : rows) {
            j.startObject().field("latencyMs", r.latency().toMillis()).name("loadAverage").decimal(r.loadAverage(), 2)
                    .name("workloads").startArray();
            for (Workload w : r.workloads()) {
                j.startObject().field("name", w.name()).field("pods", w.pods()).field("bound", w.bound())
                        .name("seconds").decimal(w.seconds(), 3).name("podsPerSecond").decimal(w.podsPerSecond(), 1)
                        .name("p50Ms").decimal(w.p50Ms(), 1).name("p99Ms").decimal(w.p99Ms(), 1)
                        .name("maxMs").decimal(w.maxMs(), 1).name("requestsPerPod").decimal(w.requestsPerPod(), 3)
                        .name("cpuSeconds").decimal(w.cpuSeconds(), 2).name("loopCpuSeconds").decimal(w.loopCpuSeconds(), 2)
                        .name("schedulerCpuMsPerPod").decimal(w.schedulerCpuMsPerPod(), 3)
                        .name("cpuSplit").startObject();
                w.cpuSplit().forEach((part, share) -> j.name(part).decimal(share, 2));
                j.endObject().name("requests").startObject();
                w.requests().forEach(j::field);
                j.endObject().endObject();
            }
            j.endArray().endObject();
        }
        return j.endArray().endObject().nextLine(0).toString();
    }
}
