package dev.arbiter.realcluster;

import dev.arbiter.json.JsonWriter;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * {@code arbiter bench --apiserver}: Arbiter and kube-scheduler of the same release on one real API server and etcd
 * (the {@link RealCluster} of the real-cluster tests), alternating, round after round, with the same pods:
 * <ul>
 *   <li><b>cold</b>: a backlog of pending pods is in the cluster (beside pods already bound), then the scheduler
 *       process starts: seconds from its start to its first and last bind, and binds a second from first to last;</li>
 *   <li><b>warm</b>: the same scheduler, running and idle, then pods created as fast as 8 client threads can
 *       (scheduler_perf's SchedulingBasic): binds a second from the first creation to the last bind, and the p50 and
 *       p99 of creation-to-bind;</li>
 *   <li><b>gangs</b> (Arbiter only): the warm burst as PodGroups of 8 and of 64;</li>
 *   <li><b>ceiling</b>: a client that binds the pending pods round-robin with no scheduling at all, 32 at a time: the
 *       most any scheduler can reach on this API server.</li>
 * </ul>
 * Each scheduler runs in a process of its own: its CPU seconds (from {@code /proc}) per 1,000 pods, and its API
 * requests per pod (from the API server's audit log), are its own. kube-scheduler runs with its default plugins and
 * a client rate limit high enough not to be the limit. Binds are timed on a watch of the pods.
 */
public final class ApiServerBenchmark {
    static final String ARBITER = "arbiter";
    static final String KUBE_SCHEDULER = "kube-scheduler";
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(10);
    /** The workloads, in the order they run. */
    public static final List<String> WORKLOADS = List.of("cold", "warm", "gangs", "ceiling");
    /** The schedulers compared. */
    public static final List<String> SCHEDULERS = List.of("kube-scheduler", "arbiter");
    private static final int CEILING_BINDERS = 32;
    private static final long TICKS_PER_SECOND = 100; // USER_HZ on Linux

    /** A cluster: {@code nodes} nodes, a burst or backlog of {@code pods} pods, {@code bound} pods already bound. */
    public record Size(int nodes, int pods, int bound) {
        @Override
        public String toString() {
            return pods + " pods x " + nodes + " nodes" + (bound > 0 ? " (+" + bound + " bound)" : "");
        }
    }

    /**
     * What to run: the sizes, rounds of each (schedulers alternate), the workloads and schedulers (subsets of
     * {@link #WORKLOADS} and {@link #SCHEDULERS}), the client threads that create pods, and Arbiter's rules and binders.
     */
    public record Options(List<Size> sizes, int rounds, List<String> workloads, List<String> schedulers, int creators,
                          Path rules, int binders, Path arbiterJava, List<String> arbiterJvmArgs, List<String> arbiterArgs) {
        public Options {
            workloads = List.copyOf(workloads);
            schedulers = List.copyOf(schedulers);
            arbiterJvmArgs = List.copyOf(arbiterJvmArgs);
            arbiterArgs = List.copyOf(arbiterArgs);
        }

        boolean runs(String workload) {
            return workloads.contains(workload);
        }
    }

    /**
     * One measurement. Times in seconds; {@code first} and {@code last} from the scheduler's start (cold) or the first
     * creation (warm); latencies p50/p99 of creation to bind (warm) or of a gang's last member to its last bind;
     * {@code decidedP99} (gangs only, else NaN) of a gang's last member to its first bind: the cycle that placed it.
     */
    public record Figure(String workload, String scheduler, Size size, int round, double first, double last,
                         double bindsPerSecond, double p50, double p99, double cpuPer1000, double requestsPerPod,
                         double decidedP99) {}

    private final Options options;
    private final PrintWriter progress;
    private RealCluster cluster;
    private KubernetesClient admin;

    public ApiServerBenchmark(Options options, PrintWriter progress) {
        this.options = options;
        this.progress = progress;
    }

    /** Builds or finds the binaries, starts the control plane, runs every size and round, and tears it all down. */
    public List<Figure> run() throws Exception {
        Path bin = ClusterBinaries.find();
        if (bin == null) throw new IllegalStateException("no cluster binaries: " + ClusterBinaries.whyMissing());
        Path dir = Files.createTempDirectory("arbiter-apiserver-bench");
        say("control plane in " + dir + " (binaries " + bin + ")");
        List<Figure> out = new ArrayList<>();
        try (RealCluster c = RealCluster.start(bin, dir)) {
            cluster = c;
            // Requests of up to 2 minutes (deleting thousands of pods is one), as many in flight as the threads.
            admin = c.adminClient(Duration.ofMinutes(2), CEILING_BINDERS);
            for (Size size : options.sizes()) {
                makeNodes(size.nodes());
                String boundNs = "bound";
                emptyNamespace(boundNs);
                if (size.bound() > 0) createPods(boundNs, size.bound(), i -> pod(boundNs, "b-" + i, "nobody", "n-" + (i % size.nodes())));
                for (int round = 1; round <= options.rounds(); round++) {
                    List<String> order = round % 2 == 1 ? List.of(KUBE_SCHEDULER, ARBITER) : List.of(ARBITER, KUBE_SCHEDULER);
                    for (String scheduler : order) {
                        if (options.schedulers().contains(scheduler)) out.addAll(coldAndWarm(scheduler, size, round));
                    }
                    if (options.runs("ceiling")) out.add(ceiling(size, round));
                }
                emptyNamespace(boundNs);
            }
        } finally {
            cluster = null;
        }
        return out;
    }

    // ---- workloads -------------------------------------------------------------------------------------------------

    private List<Figure> coldAndWarm(String scheduler, Size size, int round) throws Exception {
        List<Figure> out = new ArrayList<>();
        String user = ARBITER.equals(scheduler) ? RealCluster.ARBITER_USER : RealCluster.KUBE_SCHEDULER_USER;
        String name = ARBITER.equals(scheduler) ? "arbiter" : "default-scheduler";
        String cold = "cold-" + round;
        emptyNamespace(cold);
        boolean backlog = options.runs("cold");
        int coldPods = backlog ? size.pods() : 1;
        if (backlog) createPods(cold, coldPods, i -> pod(cold, "p-" + i, name, null));
        Binds coldBinds = new Binds(admin, cold);
        long mark = cluster.audit.mark();
        long start = System.nanoTime();
        Process p = startScheduler(scheduler);
        try {
            // Without the cold workload, one pod bound says the scheduler is up.
            if (!backlog) createPods(cold, coldPods, i -> pod(cold, "p-" + i, name, null));
            coldBinds.await(coldPods, p);
            double cpu = cpuSeconds(p); // start-up included
            int requests = cluster.audit.since(mark, r -> r.by(user)).size();
            if (backlog) out.add(figure("cold", scheduler, size, round, coldBinds, start, null, cpu, requests));
            coldBinds.close();
            emptyNamespace(cold);

            if (options.runs("warm")) {
                // Warm: the same process, idle now.
                Thread.sleep(2_000);
                String warm = "warm-" + round;
                emptyNamespace(warm);
                Binds warmBinds = new Binds(admin, warm);
                mark = cluster.audit.mark();
                double cpuBefore = cpuSeconds(p);
                long[] created = new long[size.pods()];
                long warmStart = System.nanoTime();
                createPods(warm, size.pods(), i -> pod(warm, "p-" + i, name, null), created);
                warmBinds.await(size.pods(), p);
                cpu = cpuSeconds(p) - cpuBefore;
                requests = cluster.audit.since(mark, r -> r.by(user)).size();
                out.add(figure("warm", scheduler, size, round, warmBinds, warmStart, created, cpu, requests));
                warmBinds.close();
                emptyNamespace(warm);
            }

            if (options.runs("gangs") && ARBITER.equals(scheduler)) {
                for (int gang : new int[] {8, 64}) out.add(gangs(p, size, round, gang, user));
            }
        } finally {
            p.destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) p.destroyForcibly();
        }
        return out;
    }

    /** The warm burst as PodGroups of {@code gang}: latency from a gang's last member created to its last bind. */
    private Figure gangs(Process p, Size size, int round, int gang, String user) throws Exception {
        String ns = "gangs" + gang + "-" + round;
        emptyNamespace(ns);
        int groups = Math.max(1, size.pods() / gang);
        int pods = groups * gang;
        Binds binds = new Binds(admin, ns);
        long mark = cluster.audit.mark();
        double cpuBefore = cpuSeconds(p);
        long[] created = new long[pods];
        long start = System.nanoTime();
        // Each gang's PodGroup first, then its members; the creators work gang by gang.
        parallel(groups, options.creators(), g -> {
            admin.resource(podGroup(ns, "g-" + g, gang)).create();
            for (int m = 0; m < gang; m++) {
                admin.pods().inNamespace(ns).resource(withGroup(pod(ns, "g-" + g + "-" + m, "arbiter", null), "g-" + g)).create();
                created[g * gang + m] = System.nanoTime();
            }
        });
        binds.await(pods, p);
        double cpu = cpuSeconds(p) - cpuBefore;
        int requests = cluster.audit.since(mark, r -> r.by(user)).size();
        // Per gang: its last member's creation to its first bind (the cycle that decided it) and to its last bind.
        long[] lastCreated = new long[groups];
        long[] firstBound = new long[groups];
        long[] lastBound = new long[groups];
        Arrays.fill(firstBound, Long.MAX_VALUE);
        for (int i = 0; i < pods; i++) lastCreated[i / gang] = Math.max(lastCreated[i / gang], created[i]);
        for (Map.Entry<String, Long> e : binds.times.entrySet()) {
            int g = Integer.parseInt(e.getKey().split("-")[1]);
            firstBound[g] = Math.min(firstBound[g], e.getValue());
            lastBound[g] = Math.max(lastBound[g], e.getValue());
        }
        double[] latency = new double[groups];
        double[] decided = new double[groups];
        for (int g = 0; g < groups; g++) {
            latency[g] = Math.max(0, lastBound[g] - lastCreated[g]) / 1e9;
            decided[g] = Math.max(0, firstBound[g] - lastCreated[g]) / 1e9;
        }
        Arrays.sort(latency);
        Arrays.sort(decided);
        long first = binds.times.values().stream().min(Long::compare).orElse(start);
        long last = binds.times.values().stream().max(Long::compare).orElse(start);
        binds.close();
        emptyNamespace(ns);
        Figure f = new Figure("gangs of " + gang, ARBITER, size, round, (first - start) / 1e9, (last - start) / 1e9,
                pods / Math.max(1e-9, (last - start) / 1e9), percentile(latency, 0.50), percentile(latency, 0.99),
                cpu * 1000.0 / pods, (double) requests / pods, percentile(decided, 0.99));
        say(describe(f));
        return f;
    }

    /** The most any scheduler can bind here: pending pods bound round-robin by 32 threads, no scheduling at all. */
    private Figure ceiling(Size size, int round) throws Exception {
        String ns = "ceiling-" + round;
        emptyNamespace(ns);
        createPods(ns, size.pods(), i -> pod(ns, "p-" + i, "nobody", null));
        Binds binds = new Binds(admin, ns);
        long mark = cluster.audit.mark();
        long start = System.nanoTime();
        parallel(size.pods(), CEILING_BINDERS, i -> admin.bindings().inNamespace(ns).resource(new BindingBuilder()
                .withNewMetadata().withName("p-" + i).endMetadata().withNewTarget().withKind("Node")
                .withName("n-" + (i % size.nodes())).endTarget().build()).create());
        binds.await(size.pods(), null);
        int requests = cluster.audit.since(mark, r -> r.by(RealCluster.ADMIN_USER)).size();
        Figure f = figure("ceiling", "round-robin client", size, round, binds, start, null, Double.NaN, requests);
        binds.close();
        emptyNamespace(ns);
        return f;
    }

    private Figure figure(String workload, String scheduler, Size size, int round, Binds binds, long start, long[] created,
                          double cpuSeconds, int requests) {
        long first = binds.times.values().stream().min(Long::compare).orElse(start);
        long last = binds.times.values().stream().max(Long::compare).orElse(start);
        int n = binds.times.size();
        double p50 = Double.NaN, p99 = Double.NaN;
        if (created != null) {
            double[] latency = new double[n];
            int k = 0;
            for (Map.Entry<String, Long> e : binds.times.entrySet()) {
                int i = Integer.parseInt(e.getKey().substring(2));
                latency[k++] = Math.max(0, e.getValue() - created[i]) / 1e9;
            }
            Arrays.sort(latency);
            p50 = percentile(latency, 0.50);
            p99 = percentile(latency, 0.99);
        }
        // A backlog (cold, ceiling): binds a second from the first bind to the last, the drain; warm: from the first
        // creation, so a scheduler that keeps pace with the creation shows the creation's rate.
        double span = (created == null ? last - first : last - start) / 1e9;
        Figure f = new Figure(workload, scheduler, size, round, (first - start) / 1e9, (last - start) / 1e9,
                n / Math.max(1e-9, span), p50, p99, cpuSeconds * 1000.0 / n, (double) requests / n, Double.NaN);
        say(describe(f));
        return f;
    }

    // ---- schedulers ------------------------------------------------------------------------------------------------

    private Process startScheduler(String scheduler) throws IOException {
        if (KUBE_SCHEDULER.equals(scheduler)) return cluster.startKubeScheduler(5000);
        Path java = options.arbiterJava() != null ? options.arbiterJava() : Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString()));
        String opts = System.getenv("ARBITER_JAVA_OPTS");
        if (opts != null && !opts.isBlank()) cmd.addAll(Arrays.asList(opts.trim().split("\\s+")));
        cmd.addAll(options.arbiterJvmArgs());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.arbiter.cli.Main", "run",
                "--kubeconfig", cluster.arbiterKubeconfig().toString(), "--scheduler-name", "arbiter",
                "--rules", options.rules().toString(), "--binders", String.valueOf(options.binders()),
                "--metrics-port", "0", "--metrics-bind-address", "127.0.0.1"));
        cmd.addAll(options.arbiterArgs());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(cluster.dir.resolve("arbiter.log").toFile()));
        pb.environment().put("POD_NAME", "arbiter-bench");
        pb.environment().put("POD_NAMESPACE", "arbiter-system");
        return pb.start();
    }

    /** User plus system CPU seconds of process {@code p} so far, from {@code /proc/<pid>/stat}. */
    static double cpuSeconds(Process p) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(p.pid()), "stat"), StandardCharsets.US_ASCII);
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // After the command: state is field 3; utime and stime are fields 14 and 15.
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    // ---- objects ---------------------------------------------------------------------------------------------------

    private void makeNodes(int nodes) throws Exception {
        int have = admin.nodes().list().getItems().size();
        if (have >= nodes) return;
        say("creating nodes " + have + ".." + (nodes - 1));
        parallel(nodes - have, options.creators(), i -> cluster.node("n-" + (have + i), Map.of("cpu", "64", "memory", "256Gi", "pods", "110")));
    }

    private void createPods(String ns, int n, IntFunction<Pod> pod) throws Exception {
        createPods(ns, n, pod, null);
    }

    private void createPods(String ns, int n, IntFunction<Pod> pod, long[] created) throws Exception {
        parallel(n, options.creators(), i -> {
            admin.pods().inNamespace(ns).resource(pod.apply(i)).create();
            if (created != null) created[i] = System.nanoTime();
        });
    }

    /** One step of {@link #parallel}: the work for index {@code i}. */
    private interface Step {
        void run(int i) throws Exception;
    }

    /** Runs {@code step} for 0..n-1 on {@code threads} threads, each taking the next index; throws what a step threw. */
    private static void parallel(int n, int threads, Step step) throws Exception {
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i; (i = next.getAndIncrement()) < n; ) step.run(i);
                    return null;
                }));
            }
            for (Future<?> f : done) f.get();
        } finally {
            pool.shutdownNow();
        }
    }

    /** The namespace exists, with its default ServiceAccount, and holds no pods (deleted at once, no grace). */
    private void emptyNamespace(String ns) throws InterruptedException {
        cluster.namespace(ns);
        admin.pods().inNamespace(ns).withGracePeriod(0).delete();
        admin.genericKubernetesResources("scheduling.volcano.sh/v1beta1", "PodGroup").inNamespace(ns).delete();
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (!admin.pods().inNamespace(ns).list().getItems().isEmpty()) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("pods of " + ns + " not deleted within 5 minutes");
            Thread.sleep(200);
        }
    }

    static Pod pod(String ns, String name, String schedulerName, String nodeName) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata()
                .withNewSpec().withSchedulerName(schedulerName).withNodeName(nodeName)
                .addNewContainer().withName("c").withImage("registry.example.com/bench:1").withNewResources()
                .addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("128Mi"))
                .endResources().endContainer().endSpec().build();
    }

    private static Pod withGroup(Pod pod, String group) {
        pod.getMetadata().setAnnotations(Map.of("scheduling.k8s.io/group-name", group));
        return pod;
    }

    private static io.fabric8.kubernetes.api.model.GenericKubernetesResource podGroup(String ns, String name, int minMember) {
        io.fabric8.kubernetes.api.model.GenericKubernetesResource pg = new io.fabric8.kubernetes.api.model.GenericKubernetesResource();
        pg.setApiVersion("scheduling.volcano.sh/v1beta1");
        pg.setKind("PodGroup");
        pg.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(name).withNamespace(ns).build());
        pg.setAdditionalProperty("spec", Map.of("minMember", minMember, "queue", "default"));
        return pg;
    }

    // ---- measuring -------------------------------------------------------------------------------------------------

    /** When each pod of a namespace was first seen bound, from a watch opened before the pods exist. */
    private static final class Binds implements AutoCloseable {
        final Map<String, Long> times = new ConcurrentHashMap<>();
        private final Watch watch;
        private final String ns;

        Binds(KubernetesClient admin, String ns) {
            this.ns = ns;
            this.watch = admin.pods().inNamespace(ns).watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, Pod pod) {
                    if (pod.getSpec().getNodeName() != null) times.putIfAbsent(pod.getMetadata().getName(), System.nanoTime());
                }

                @Override
                public void onClose(WatcherException cause) {}
            });
        }

        /** Waits until {@code n} pods were seen bound; fails when the scheduler exits or the drain takes too long. */
        void await(int n, Process scheduler) throws InterruptedException {
            long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
            while (times.size() < n) {
                if (scheduler != null && !scheduler.isAlive()) {
                    throw new IllegalStateException("the scheduler exited (" + scheduler.exitValue() + ") with " + times.size()
                            + " of " + n + " pods of " + ns + " bound");
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(times.size() + " of " + n + " pods of " + ns + " bound within "
                            + DRAIN_TIMEOUT.toMinutes() + " minutes");
                }
                Thread.sleep(20);
            }
        }

        @Override
        public void close() {
            watch.close();
        }
    }

    static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }

    private void say(String line) {
        progress.println(line);
        progress.flush();
    }

    // ---- report ----------------------------------------------------------------------------------------------------

    static String describe(Figure f) {
        return String.format(Locale.ROOT, "%s round %d, %s, %s: first bind %.2f s, last %.2f s, %.0f binds/s%s%s%s%s",
                f.workload(), f.round(), f.size(), f.scheduler(), f.first(), f.last(), f.bindsPerSecond(),
                Double.isNaN(f.p50()) ? "" : String.format(Locale.ROOT, ", p50 %.3f s, p99 %.3f s", f.p50(), f.p99()),
                Double.isNaN(f.decidedP99()) ? "" : String.format(Locale.ROOT, ", first bind of a gang p99 %.3f s", f.decidedP99()),
                Double.isNaN(f.cpuPer1000()) ? "" : String.format(Locale.ROOT, ", %.2f CPU s per 1,000 pods", f.cpuPer1000()),
                String.format(Locale.ROOT, ", %.2f requests per pod", f.requestsPerPod()));
    }

    /** Every round's figures as a JSON array, one figure per line; measures with four decimals, null where not measured. */
    public static String json(List<Figure> figures) {
        JsonWriter j = JsonWriter.spaced().startArray();
        for (Figure f : figures) {
            j.nextLine(2).startObject().field("workload", f.workload()).field("scheduler", f.scheduler())
                    .field("nodes", f.size().nodes()).field("pods", f.size().pods()).field("bound", f.size().bound())
                    .field("round", f.round());
            measure(j, "first", f.first());
            measure(j, "last", f.last());
            measure(j, "bindsPerSecond", f.bindsPerSecond());
            measure(j, "p50", f.p50());
            measure(j, "p99", f.p99());
            measure(j, "cpuPer1000", f.cpuPer1000());
            measure(j, "requestsPerPod", f.requestsPerPod());
            measure(j, "gangFirstBindP99", f.decidedP99());
            j.endObject();
        }
        return j.nextLine(0).endArray().nextLine(0).toString();
    }

    private static void measure(JsonWriter j, String name, double v) {
        j.name(name);
        if (Double.isNaN(v) || Double.isInfinite(v)) j.nullValue();
        else j.decimal(v, 4);
    }

    /**
     * The medians over rounds of each workload, size and scheduler, with Arbiter's ratio to kube-scheduler (binds a
     * second; first bind and CPU per pod as Arbiter's over kube-scheduler's) and to the ceiling.
     */
    public static String table(List<Figure> figures) {
        StringBuilder out = new StringBuilder();
        out.append("| workload | size | scheduler | first bind s | last bind s | binds/s | p50 s | p99 s | CPU s / 1,000 pods | requests / pod |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|\n");
        Map<String, List<Figure>> groups = new java.util.LinkedHashMap<>();
        for (Figure f : figures) groups.computeIfAbsent(f.workload() + "|" + f.size() + "|" + f.scheduler(), k -> new ArrayList<>()).add(f);
        Map<String, Figure> medians = new java.util.LinkedHashMap<>();
        groups.forEach((k, fs) -> medians.put(k, median(fs)));
        List<String> keys = new ArrayList<>(medians.keySet());
        keys.sort(Comparator.comparing((String k) -> k.split("\\|")[1]).thenComparing(k -> k.split("\\|")[0]));
        for (String k : keys) {
            Figure m = medians.get(k);
            out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %.2f |%n", m.workload(),
                    m.size(), m.scheduler() + " (" + groups.get(k).size() + " rounds)", num(m.first()), num(m.last()),
                    m.bindsPerSecond(), num3(m.p50()), num3(m.p99()), num(m.cpuPer1000()), m.requestsPerPod()));
        }
        out.append("\nArbiter against kube-scheduler (medians):\n");
        for (String k : keys) {
            Figure a = medians.get(k);
            if (!ARBITER.equals(a.scheduler())) continue;
            Figure ks = medians.get(a.workload() + "|" + a.size() + "|" + KUBE_SCHEDULER);
            Figure ceiling = medians.get("ceiling|" + a.size() + "|round-robin client");
            List<String> parts = new ArrayList<>();
            if (ks != null) {
                String vs = String.format(Locale.ROOT, "binds/s %.2fx kube-scheduler's", a.bindsPerSecond() / ks.bindsPerSecond());
                if ("cold".equals(a.workload())) vs += String.format(Locale.ROOT, ", first bind %.2f s vs %.2f s", a.first(), ks.first());
                if (!Double.isNaN(a.p99())) vs += String.format(Locale.ROOT, ", p99 %.3f s vs %.3f s", a.p99(), ks.p99());
                parts.add(vs + String.format(Locale.ROOT, ", CPU per pod %.2fx", a.cpuPer1000() / ks.cpuPer1000()));
            } else if (!Double.isNaN(a.p99())) {
                parts.add(String.format(Locale.ROOT, "p50 %.3f s, p99 %.3f s", a.p50(), a.p99())
                        + (Double.isNaN(a.decidedP99()) ? "" : String.format(Locale.ROOT,
                        " from a gang's last member to its last bind; p99 %.3f s to its first bind", a.decidedP99())));
            }
            if (ceiling != null) {
                parts.add(String.format(Locale.ROOT, "%.0f%% of the ceiling (%.0f binds/s)%s",
                        100 * a.bindsPerSecond() / ceiling.bindsPerSecond(), ceiling.bindsPerSecond(), ks == null ? ""
                                : String.format(Locale.ROOT, " (kube-scheduler %.0f%%)", 100 * ks.bindsPerSecond() / ceiling.bindsPerSecond())));
            }
            out.append("- ").append(a.workload()).append(", ").append(a.size()).append(": ").append(String.join("; ", parts)).append('\n');
        }
        return out.toString();
    }

    private static Figure median(List<Figure> fs) {
        Figure any = fs.get(0);
        return new Figure(any.workload(), any.scheduler(), any.size(), 0, med(fs, Figure::first), med(fs, Figure::last),
                med(fs, Figure::bindsPerSecond), med(fs, Figure::p50), med(fs, Figure::p99), med(fs, Figure::cpuPer1000),
                med(fs, Figure::requestsPerPod), med(fs, Figure::decidedP99));
    }

    private static double med(List<Figure> fs, java.util.function.ToDoubleFunction<Figure> v) {
        double[] xs = fs.stream().mapToDouble(v).sorted().toArray();
        if (xs.length == 0 || Double.isNaN(xs[0])) return Double.NaN;
        return xs.length % 2 == 1 ? xs[xs.length / 2] : (xs[xs.length / 2 - 1] + xs[xs.length / 2]) / 2;
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String num3(double v) {
        return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%.3f", v);
    }
}
