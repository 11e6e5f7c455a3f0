package dev.arbiter.specs;

import dev.arbiter.specs.Workload.Kind;
import io.cucumber.datatable.DataTable;
import io.cucumber.java.en.Given;
import io.cucumber.java.en.When;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Setup steps for tenants' workloads. Every sentence reads
 * {@code tenant <T> runs|submits <workload>[ at <priority class>][ in queue "<queue>"][, <clause>]...}:
 * tenant {@code T} works in namespace {@code tenant<t>} (tenant A → {@code tenanta}); "runs" says the workload is
 * running once its Given (or When) steps have settled and fails the scenario if not, "submits" makes no such claim;
 * without a queue the workload goes to Volcano's {@code default} queue, without a priority class it takes the cluster's
 * default class. Clauses: {@code needing at least <n> pods} (an elastic gang), {@code not preemptable} (pods marked
 * {@code volcano.sh/preemptable: "false"}), {@code never preempting} (pods with {@code preemptionPolicy: Never}),
 * {@code only on nodes labelled <key>=<value>} (required node affinity), {@code one pod per node} (required pod
 * anti-affinity per hostname among the workload's pods), {@code each group kept within one <key>} (a
 * LeaderWorkerSet's exclusive-topology annotation), {@code kept within one <key>} (the whole gang in one network
 * domain, Kueue's {@code podset-required-topology: <key>}) and {@code preferably within one <key>} (Kueue's
 * {@code podset-preferred-topology}), {@code tolerating <key>=<value>:<Effect>} (a toleration on every pod),
 * {@code whose PodGroup is (not) preemptable} (a job's PodGroup marked {@code volcano.sh/preemptable}),
 * {@code arriving after <n> seconds|minutes|hours} (its objects arrive that long after its batch), {@code one every
 * [<n>] second|minute|hour} ({@code <n> jobs} arrive one by one, that far apart), {@code each running <n> minutes} (each
 * pod ends that long after it starts: {@code simulation.arbiter.dev/runtime}) {@code estimated at <n> minutes}
 * or {@code expected to run <duration>} (its runtime estimate, {@code arbiter.dev/runtime-estimate}, e.g. 2h or 1h30m).
 */
public final class WorkloadSteps {
    private static final String HEAD = "^tenant (\\S+) (runs|submits) ";
    private static final String TAIL = "(?: at ([\\w.-]+))?(?: in queue \"([^\"]+)\")?((?:, [^,]+)*)$";
    private static final Pattern NEEDING = Pattern.compile("needing at least (\\d+) pods?");
    private static final Pattern ONLY_ON = Pattern.compile("only on nodes labelled ([^=\\s]+)=(\\S+)");
    private static final Pattern GROUP_WITHIN = Pattern.compile("each group kept within one (\\S+)");
    private static final Pattern KEPT_WITHIN = Pattern.compile("(kept|preferably) within one (\\S+)");
    private static final Pattern ARRIVING = Pattern.compile("arriving after (\\d+) (second|minute|hour)s?");
    private static final Pattern EVERY = Pattern.compile("one every (\\d+ )?(second|minute|hour)s?");
    private static final Pattern RUNNING = Pattern.compile("each running (\\d+) (second|minute|hour)s?");
    private static final Pattern ESTIMATED = Pattern.compile("estimated at (\\d+) (second|minute|hour)s?");
    private static final Pattern EXPECTED = Pattern.compile("expected to run (\\S+)");
    private static final Pattern TOLERATING =
            Pattern.compile("tolerating ([^=\\s]+=[^:\\s]*:(?:NoSchedule|PreferNoSchedule|NoExecute))");

    @Given(HEAD + "a PyTorchJob \"([^\"]+)\" with (\\d+) masters? and (\\d+) workers? of (\\d+) GPUs? each" + TAIL)
    public void pyTorchJob(String tenant, String verb, String name, int masters, int workers, int gpus,
                           String priorityClass, String queue, String clauses) {
        add(new Parts(tenant, verb, priorityClass, queue, clauses), Kind.PYTORCH_JOB, name, masters, workers, gpus);
    }

    @Given(HEAD + "a LeaderWorkerSet \"([^\"]+)\" of size (\\d+) with (\\d+) GPUs? per pod" + TAIL)
    public void leaderWorkerSet(String tenant, String verb, String name, int size, int gpus,
                                String priorityClass, String queue, String clauses) {
        add(new Parts(tenant, verb, priorityClass, queue, clauses), Kind.LEADER_WORKER_SET, name, 0, size, gpus);
    }

    @Given(HEAD + "a job \"([^\"]+)\" of (\\d+) pods? with (\\d+) GPUs? each" + TAIL)
    public void job(String tenant, String verb, String name, int pods, int gpus,
                    String priorityClass, String queue, String clauses) {
        add(new Parts(tenant, verb, priorityClass, queue, clauses), Kind.JOB, name, 0, pods, gpus);
    }

    @Given(HEAD + "a pod \"([^\"]+)\" with (\\d+) GPUs?" + TAIL)
    public void pod(String tenant, String verb, String name, int gpus, String priorityClass, String queue, String clauses) {
        add(new Parts(tenant, verb, priorityClass, queue, clauses), Kind.POD, name, 0, 1, gpus);
    }

    @Given(HEAD + "(\\d+) jobs \"([^\"]+)\" of (\\d+) GPUs? each" + TAIL)
    public void jobs(String tenant, String verb, int count, String name, int gpus,
                     String priorityClass, String queue, String clauses) {
        add(new Parts(tenant, verb, priorityClass, queue, clauses), Kind.JOBS, name, 0, count, gpus);
    }

    /** The capture groups every workload sentence shares: who, runs or submits, at, in queue, and the clauses. */
    private record Parts(String tenant, String verb, String priorityClass, String queue, String clauses) {}

    private static void add(Parts p, Kind kind, String name, int masters, int pods, int gpus) {
        Integer minPods = null;
        boolean preemptable = true;
        boolean preempts = true;
        String nodeLabel = null, nodeValue = null, groupKey = null;
        boolean onePerNode = false;
        String domainKey = null;
        boolean domainHard = false;
        List<String> tolerations = new java.util.ArrayList<>();
        Boolean groupPreemptable = null;
        int after = 0, every = 0;
        long runs = -1, estimate = -1;
        for (String clause : p.clauses().split(", ")) {
            if (clause.isBlank()) continue;
            Matcher m = NEEDING.matcher(clause.trim());
            Matcher only = ONLY_ON.matcher(clause.trim());
            Matcher within = GROUP_WITHIN.matcher(clause.trim());
            Matcher kept = KEPT_WITHIN.matcher(clause.trim());
            Matcher tolerating = TOLERATING.matcher(clause.trim());
            Matcher arriving = ARRIVING.matcher(clause.trim());
            Matcher oneEvery = EVERY.matcher(clause.trim());
            Matcher running = RUNNING.matcher(clause.trim());
            Matcher estimated = ESTIMATED.matcher(clause.trim());
            Matcher expected = EXPECTED.matcher(clause.trim());
            if (arriving.matches()) after = (int) seconds(arriving.group(1), arriving.group(2));
            else if (oneEvery.matches()) every = (int) seconds(oneEvery.group(1) == null ? "1" : oneEvery.group(1).trim(), oneEvery.group(2));
            else if (running.matches()) runs = seconds(running.group(1), running.group(2));
            else if (estimated.matches()) estimate = seconds(estimated.group(1), estimated.group(2));
            else if (expected.matches()) {
                estimate = dev.arbiter.model.Runtimes.seconds(expected.group(1));
                if (estimate < 0) {
                    throw new IllegalArgumentException("\", " + clause.trim() + "\": a runtime is a duration such as 45m, 2h or 1h30m");
                }
            }
            else if (m.matches()) minPods = Integer.parseInt(m.group(1));
            else if (clause.trim().equals("not preemptable")) preemptable = false;
            else if (clause.trim().equals("never preempting")) preempts = false;
            else if (clause.trim().equals("one pod per node")) onePerNode = true;
            else if (only.matches()) {
                nodeLabel = only.group(1);
                nodeValue = only.group(2);
            } else if (within.matches()) groupKey = within.group(1);
            else if (tolerating.matches()) tolerations.add(tolerating.group(1));
            else if (clause.trim().equals("whose PodGroup is preemptable")) groupPreemptable = true;
            else if (clause.trim().equals("whose PodGroup is not preemptable")) groupPreemptable = false;
            else if (kept.matches()) {
                domainHard = kept.group(1).equals("kept");
                domainKey = kept.group(2);
            } else {
                throw new IllegalArgumentException("cannot read \", " + clause.trim() + "\": the clauses after a workload"
                        + " are \", needing at least <n> pods\", \", not preemptable\", \", never preempting\", \", only on"
                        + " nodes labelled <key>=<value>\", \", one pod per node\", \", each group kept within one <key>\", \", kept within"
                        + " one <key>\", \", preferably within one <key>\", \", tolerating <key>=<value>:<Effect>\", \", whose PodGroup is [not] preemptable\","
                        + " \", arriving after <n> minutes\", \", one every [<n>] minute(s)\", \", each running <n> minutes\", \", estimated at <n> minutes\" and \", expected to run <duration>\"");
            }
        }
        Workload w = new Workload(kind, namespace(p.tenant()), name, masters, pods, gpus, p.priorityClass(),
                p.queue() == null ? "default" : p.queue(), minPods, preemptable, preempts,
                new Workload.Placing(nodeLabel, nodeValue, onePerNode, groupKey, domainKey, domainHard,
                        List.copyOf(tolerations)), groupPreemptable, new Workload.Timing(after, every, runs, estimate));
        if (p.verb().equals("runs")) ScenarioWorld.current().addRunning(w);
        else ScenarioWorld.current().add(w);
    }

    /** {@code n} seconds, minutes or hours, in seconds (a spec's cycle is one second). */
    private static long seconds(String n, String unit) {
        return Long.parseLong(n) * switch (unit) {
            case "hour" -> 3600;
            case "minute" -> 60;
            default -> 1;
        };
    }

    /** Tenant A works in namespace {@code tenanta}. */
    static String namespace(String tenant) {
        String ns = "tenant" + tenant.toLowerCase(Locale.ROOT);
        if (!ns.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
            throw new IllegalArgumentException("tenant \"" + tenant + "\" does not make a namespace name; use letters and digits");
        }
        return ns;
    }

    // ---- tables ------------------------------------------------------------------------------------------------------

    @Given("the jobs:")
    public void jobsTable(DataTable table) {
        addTable(table);
    }

    @When("these jobs arrive:")
    public void jobsArrive(DataTable table) {
        addTable(table);
    }

    /**
     * Columns: tenant, name, pods, GPUs each (required); kind (job, PyTorchJob, LeaderWorkerSet, pod, jobs; default
     * job), priority, queue, min pods, preemptable (yes/no), preempts (yes/no). A PyTorchJob's pods are one master and
     * pods-1 workers; a LeaderWorkerSet's pods are its size; "jobs" makes that many one-pod jobs.
     */
    private static void addTable(DataTable table) {
        for (Map<String, String> row : Tables.rows(table, Set.of("tenant", "name", "pods", "gpus each"),
                Set.of("kind", "priority", "queue", "min pods", "preemptable", "preempts"))) {
            Kind kind = Kind.of(row.getOrDefault("kind", "job"));
            int pods = Tables.integer(row, "pods", 1);
            if (kind == Kind.POD && pods != 1) throw new IllegalArgumentException(row.get("name") + ": a pod has 1 pod");
            if (kind == Kind.PYTORCH_JOB && pods < 1) throw new IllegalArgumentException(row.get("name") + ": a PyTorchJob needs its master");
            int masters = kind == Kind.PYTORCH_JOB ? 1 : 0;
            ScenarioWorld.current().add(new Workload(kind, namespace(row.get("tenant")), row.get("name"), masters,
                    pods - masters, Tables.integer(row, "gpus each", 0), row.get("priority"),
                    row.getOrDefault("queue", "default"), Tables.optionalInteger(row, "min pods"),
                    Tables.yesNo(row, "preemptable", true), Tables.yesNo(row, "preempts", true)));
        }
    }
}
