package dev.arbiter.livebench;

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
 * The live end-to-end benchmark ({@code arbiter bench --live}): the real {@code arbiter run}, in this JVM, against a
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
 * the CPU the JVM used meanwhile (scheduler, stand-in and creator together) and the scheduling loop's share of it:
 * figures that mean more than wall-clock time on a shared machine.
 *
 * <p>A warm-up pass at a fifth of the size runs first (JIT), unreported. Objects are created inside the stand-in (as if by a client whose requests cost nothing), so the creator's own
 * requests neither load the machine nor count; the scheduler's requests all go through HTTP with the latency.
 */
public final class LiveBenchmark {
    /** What to run. */
    public record Options(List<Duration> latencies, int nodes, int pods, int burst, int gangs, int gangSize,
                          int pacedPods, double rate, Path rules, int binders, Duration timeout, boolean warmUp) {
        /** The matrix: 0, 2 and 10 ms; 5,000 nodes; 10,000 pods in bursts of 1,000; 1,000 gangs of 8; 1,250 pods/s paced. */
        public static Options standard(Path rules) {
            return new Options(List.of(Duration.ZERO, Duration.ofMillis(2), Duration.ofMillis(10)), 5000, 10_000, 1000,
                    1000, 8, 10_000, 1250, rules, 32, Duration.ofMinutes(3), true);
        }

        /** A warm-up pass: a fifth of the size, the first latency only, not reported. */
        Options warmUpPass() {
            return new Options(List.of(latencies.get(0)), Math.max(1, nodes / 5), Math.max(1, pods / 5), burst,
                    gangs / 5, gangSize, pacedPods / 5, rate, rules, binders, timeout, false);
        }

        /** A small, quick run (a test and a smoke check): 300 nodes, 1,000 pods, 50 gangs of 8, 500 paced at 500/s. */
        public static Options quick(Path rules) {
            return new Options(List.of(Duration.ofMillis(2)), 300, 1000, 250, 50, 8, 500, 500, rules, 32, Duration.ofMinutes(2),
                    false);
        }
    }

    /** Starts {@code arbiter run} with these arguments on the calling thread and returns its exit code. */
    public interface Runner {
        int run(String[] args);
    }

    /** One workload's figures. Times in milliseconds. */
    public record Workload(String name, int pods, int bound, double seconds, double podsPerSecond, double p50Ms,
                           double p99Ms, double maxMs, Map<String, Long> requests, double cpuSeconds, double loopCpuSeconds) {
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
    private final PrintWriter progress;

    public LiveBenchmark(Options options, Runner runner, PrintWriter progress) {
        this.options = options;
        this.runner = runner;
        this.progress = progress;
    }

    public List<Row> run() throws IOException, InterruptedException {
        if (options.warmUp() && !options.latencies().isEmpty()) {
            // The first latency would otherwise pay for the JIT compiling the scheduler, the stand-in and the client.
            progress.println("warm-up (not reported):");
            new LiveBenchmark(options.warmUpPass(), runner, progress).run();
        }
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
            Thread run = new Thread(() -> exit.set(runner.run(new String[] {"run", "--kubeconfig", kubeconfig.toString(),
                    "--rules", options.rules().toString(), "--scheduler-name", "arbiter", "--period", "1s",
                    "--metrics-port", Integer.toString(port), "--metrics-bind-address", "127.0.0.1",
                    "--binders", Integer.toString(options.binders())})), "arbiter-run (bench)");
            run.start();
            try {
                awaitReady(port, run);
                List<Workload> workloads = new ArrayList<>();
                workloads.add(measure(api, "burst", boundAt, () -> createBursts(api, "burst", options.pods())));
                workloads.add(measure(api, "gangs", boundAt, () -> createGangs(api)));
                workloads.add(measure(api, "paced", boundAt, () -> createPaced(api)));
                double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
                return new Row(latency, workloads, load);
            } finally {
                run.interrupt();
                run.join(60_000);
                Files.deleteIfExists(kubeconfig);
                if (exit.get() != 0 && !run.isAlive()) progress.println("  arbiter run exited " + exit.get());
            }
        }
    }

    private interface Creation {
        List<String> create() throws InterruptedException;
    }

    /** Runs one workload: creates its pods, waits until all are bound, measures. */
    private Workload measure(StandInApiServer api, String name, Map<String, Long> boundAt, Creation creation)
            throws InterruptedException {
        Map<String, Long> before = api.requestCounts();
        double cpu0 = processCpuSeconds();
        double loop0 = threadCpuSeconds("arbiter-scheduling-loop");
        long start = System.nanoTime();
        List<String> pods = creation.create();
        long deadline = start + options.timeout().toNanos();
        while (System.nanoTime() < deadline && !allBound(pods, boundAt)) Thread.sleep(20);
        Map<String, Long> after = api.requestCounts();
        double cpu = processCpuSeconds() - cpu0;
        double loopCpu = threadCpuSeconds("arbiter-scheduling-loop") - loop0;
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
                sorted.length == 0 ? 0 : sorted[sorted.length - 1], diff(before, after), cpu, loopCpu);
        progress.printf(Locale.ROOT, "  %-6s %6d/%d bound in %6.2f s: %7.0f pods/s, p50 %6.0f ms, p99 %6.0f ms, %.2f requests/pod,"
                        + " CPU %.1f s (scheduling loop %.1f s)%n", name, w.bound(), w.pods(), w.seconds(), w.podsPerSecond(),
                w.p50Ms(), w.p99Ms(), w.requestsPerPod(), cpu, loopCpu);
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

    private List<String> createGangs(StandInApiServer api) throws InterruptedException {
        List<String> keys = new ArrayList<>();
        int inBurst = 0;
        for (int g = 0; g < options.gangs(); g++) {
            String group = "gang-" + g;
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
    private List<String> createPaced(StandInApiServer api) throws InterruptedException {
        List<String> keys = new ArrayList<>(options.pacedPods());
        long start = System.nanoTime();
        int made = 0;
        while (made < options.pacedPods()) {
            double elapsed = (System.nanoTime() - start) / 1e9;
            int owed = (int) Math.min(options.pacedPods(), Math.floor(elapsed * options.rate()) + 1);
            for (; made < owed; made++) {
                createPod(api, "bench", "paced-" + made, null);
                keys.add("bench/paced-" + made);
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

    /** CPU time of this whole JVM (scheduler, stand-in and creator together), in seconds. */
    private static double processCpuSeconds() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime() / 1e9;
        }
        return 0;
    }

    /** CPU time of the live threads named {@code name}, in seconds. */
    private static double threadCpuSeconds(String name) {
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double total = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) total += Math.max(0, threads.getThreadCpuTime(t.getId())) / 1e9;
        }
        return total;
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
                "%7s %-6s %7s %8s %8s %8s %8s %8s %8s %8s %9s  %s%n", "rtt ms", "load", "pods", "bound", "s", "pods/s",
                "p50 ms", "p99 ms", "req/pod", "cpu s", "loop cpu", "requests by kind"));
        for (Row r : rows) {
            for (Workload w : r.workloads()) {
                sb.append(String.format(Locale.ROOT, "%7d %-6s %7d %8d %8.2f %8.0f %8.0f %8.0f %8.2f %8.1f %9.1f  %s%n",
                        r.latency().toMillis(), w.name(), w.pods(), w.bound(), w.seconds(), w.podsPerSecond(), w.p50Ms(),
                        w.p99Ms(), w.requestsPerPod(), w.cpuSeconds(), w.loopCpuSeconds(), w.requests()));
            }
            sb.append(String.format(Locale.ROOT, "        (load average %.1f after this latency)%n", r.loadAverage()));
        }
        return sb.toString();
    }

    /** The results as JSON. */
    public static String json(List<Row> rows, String machine) {
        StringBuilder sb = new StringBuilder("{\"machine\": ").append(quote(machine)).append(", \"rows\": [");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            if (i > 0) sb.append(", ");
            sb.append(String.format(Locale.ROOT, "{\"latencyMs\": %d, \"loadAverage\": %.2f, \"workloads\": [",
                    r.latency().toMillis(), r.loadAverage()));
            for (int j = 0; j < r.workloads().size(); j++) {
                Workload w = r.workloads().get(j);
                if (j > 0) sb.append(", ");
                sb.append(String.format(Locale.ROOT, "{\"name\": %s, \"pods\": %d, \"bound\": %d, \"seconds\": %.3f, "
                                + "\"podsPerSecond\": %.1f, \"p50Ms\": %.1f, \"p99Ms\": %.1f, \"maxMs\": %.1f, "
                                + "\"requestsPerPod\": %.3f, \"cpuSeconds\": %.2f, \"loopCpuSeconds\": %.2f, \"requests\": {",
                        quote(w.name()), w.pods(), w.bound(), w.seconds(), w.podsPerSecond(), w.p50Ms(), w.p99Ms(), w.maxMs(),
                        w.requestsPerPod(), w.cpuSeconds(), w.loopCpuSeconds()));
                List<String> kinds = new ArrayList<>(w.requests().keySet());
                for (int k = 0; k < kinds.size(); k++) {
                    if (k > 0) sb.append(", ");
                    sb.append(quote(kinds.get(k))).append(": ").append(w.requests().get(kinds.get(k)));
                }
                sb.append("}}");
            }
            sb.append("]}");
        }
        return sb.append("]}\n").toString();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
