package dev.arbiter.specs;

import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.PodSpec;
import io.cucumber.java.ParameterType;
import io.cucumber.java.en.Then;
import java.util.List;
import java.util.Set;

/**
 * Outcome steps: what the cluster looks like once the whole story has settled, and what was evicted along the way.
 * "Running" and "pending" are about PodGroups (a workload is running when each of its PodGroups is), pod counts about
 * pods at the end, eviction counts about every cycle of the run. Failure messages show the workload's PodGroups and
 * pods, the evictions or the queues, so a red scenario says what happened instead.
 */
public final class OutcomeSteps {
    static final long SHARE_ROUNDING_MILLI = 10;

    private static Outcome outcome() {
        return ScenarioWorld.current().outcome();
    }

    /** "reclaim" or "preemption", as the eviction action the engine records ("reclaim" or "preempt"). */
    @ParameterType("reclaim|preemption")
    public String action(String word) {
        return word.equals("preemption") ? "preempt" : word;
    }

    // ---- workloads ---------------------------------------------------------------------------------------------------

    @Then("{string} is running")
    public void isRunning(String name) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        for (String g : w.podGroups()) {
            if (!o.status(g).phase().equals("Running")) fail("\"" + name + "\" should be running", o.describe(w));
        }
    }

    @Then("{string} is pending")
    public void isPending(String name) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        for (String g : w.podGroups()) {
            if (o.status(g).phase().equals("Running")) fail("\"" + name + "\" should be pending", o.describe(w));
        }
    }

    /** The reason of every PodGroup of the workload contains the text (the scheduler's one-line reason). */
    @Then("^\"([^\"]+)\" is pending because (.+)$")
    public void isPendingBecause(String name, String because) {
        isPending(name);
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        for (String g : w.podGroups()) {
            String reason = o.status(g).reason();
            if (reason == null || !reason.contains(because)) {
                fail("\"" + name + "\" should be pending because " + because, o.describe(w));
            }
        }
    }

    @Then("{string} is admitted")
    public void isAdmitted(String name) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        for (String g : w.podGroups()) {
            if (o.status(g).phase().equals("Pending")) fail("\"" + name + "\" should be admitted (Inqueue or Running)", o.describe(w));
        }
    }

    @Then("{string} is not admitted")
    public void isNotAdmitted(String name) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        for (String g : w.podGroups()) {
            if (!o.status(g).phase().equals("Pending")) fail("\"" + name + "\" should not be admitted (Pending)", o.describe(w));
        }
    }

    @Then("{int} pod(s) of {string} is/are running")
    public void podsRunning(int expected, String name) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        long running = w.pods().stream().filter(p -> o.phaseOf(p).equals("Running")).count();
        if (running != expected) fail(expected + " pods of \"" + name + "\" should be running, not " + running, o.describe(w));
    }

    @Then("the master/leader of {string} is (still )running")
    public void leaderRunning(String name) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        List<PodSpec> leaders = w.pods().stream().filter(PodSpec::isLeader).toList();
        if (leaders.isEmpty()) fail("\"" + name + "\" has no master or leader pod", o.describe(w));
        for (PodSpec p : leaders) {
            if (!o.phaseOf(p).equals("Running")) fail("the master/leader " + p.name() + " should be running", o.describe(w));
        }
    }

    // ---- pods --------------------------------------------------------------------------------------------------------

    @Then("pod {string} is running")
    public void podRunning(String name) {
        Outcome o = outcome();
        PodSpec p = o.pod(name);
        if (!o.phaseOf(p).equals("Running")) fail("pod " + name + " should be running, not " + o.phaseOf(p), o.describeEvictions());
    }

    @Then("pod {string} is pending")
    public void podPending(String name) {
        Outcome o = outcome();
        PodSpec p = o.pod(name);
        if (!o.phaseOf(p).equals("Pending")) fail("pod " + name + " should be pending, not " + o.phaseOf(p), o.describeEvictions());
    }

    @Then("pod {string} was evicted by {action}")
    public void podEvicted(String name, String action) {
        Outcome o = outcome();
        PodSpec p = o.pod(name);
        if (o.evictions().stream().noneMatch(e -> e.pod().equals(p.key()) && e.action().equals(action))) {
            fail("pod " + name + " should have been evicted by " + action, o.describeEvictions());
        }
    }

    // ---- evictions ---------------------------------------------------------------------------------------------------

    @Then("{int} pod(s) of {string} was/were evicted by {action}")
    public void podsEvicted(int expected, String name, String action) {
        Outcome o = outcome();
        Set<String> pods = podKeys(o.workload(name));
        long n = o.evictions().stream().filter(e -> pods.contains(e.pod()) && e.action().equals(action)).count();
        if (n != expected) fail(expected + " pods of \"" + name + "\" should have been evicted by " + action + ", not " + n, o.describeEvictions());
    }

    @Then("every pod of {string} was evicted by {action}")
    public void everyPodEvicted(String name, String action) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        for (PodSpec p : w.pods()) {
            if (o.evictions().stream().noneMatch(e -> e.pod().equals(p.key()) && e.action().equals(action))) {
                fail("every pod of \"" + name + "\" should have been evicted by " + action + ", " + p.name() + " was not",
                        o.describeEvictions());
            }
        }
    }

    @Then("no pod of {string} was evicted")
    public void noPodEvicted(String name) {
        Outcome o = outcome();
        Set<String> pods = podKeys(o.workload(name));
        if (o.evictions().stream().anyMatch(e -> pods.contains(e.pod()))) fail("no pod of \"" + name + "\" should have been evicted", o.describeEvictions());
    }

    @Then("nothing was evicted")
    public void nothingEvicted() {
        Outcome o = outcome();
        if (!o.evictions().isEmpty()) fail("nothing should have been evicted", o.describeEvictions());
    }

    @Then("only {int} pod(s) was/were evicted")
    public void onlyEvicted(int expected) {
        Outcome o = outcome();
        List<Eviction> all = o.evictions();
        if (all.size() != expected) fail(expected + " pods should have been evicted in all, not " + all.size(), o.describeEvictions());
    }

    @Then("no cycle evicted more than {int} pod(s)")
    public void evictionsPerCycle(int max) {
        Outcome o = outcome();
        for (dev.arbiter.decision.CycleResult c : o.result().cycles()) {
            if (c.evictions().size() > max) {
                fail("no cycle should evict more than " + max + " pods, cycle " + c.cycle() + " evicted "
                        + c.evictions().size(), o.describeEvictions());
            }
        }
    }

    @Then("no cycle evicted more than {int} pod(s) of {string}")
    public void evictionsOfWorkloadPerCycle(int max, String workload) {
        Outcome o = outcome();
        Set<String> pods = podKeys(o.workload(workload));
        for (dev.arbiter.decision.CycleResult c : o.result().cycles()) {
            long n = c.evictions().stream().filter(e -> pods.contains(e.pod())).count();
            if (n > max) {
                fail("no cycle should evict more than " + max + " pods of \"" + workload + "\", cycle " + c.cycle()
                        + " evicted " + n, o.describeEvictions());
            }
        }
    }

    @Then("one cycle evicted {int} pod(s)")
    public void oneCycleEvicted(int expected) {
        Outcome o = outcome();
        for (dev.arbiter.decision.CycleResult c : o.result().cycles()) {
            if (c.evictions().size() == expected) return;
        }
        fail("one cycle should have evicted " + expected + " pods, but none did", o.describeEvictions());
    }

    // ---- placement ---------------------------------------------------------------------------------------------------

    @Then("^every pod of \"([^\"]+)\" runs on a node labelled ([^=\\s]+)=(\\S+)$")
    public void everyPodRunsOnLabelled(String name, String key, String value) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        for (PodSpec p : w.pods()) {
            String node = o.nodeOf(p);
            if (node == null) fail("every pod of \"" + name + "\" should run on a node labelled " + key + "=" + value + ", "
                    + p.name() + " does not run", o.describe(w));
            if (!value.equals(o.nodeLabels(node).get(key))) {
                fail("every pod of \"" + name + "\" should run on a node labelled " + key + "=" + value + ", " + p.name()
                        + " runs on " + node + " " + o.nodeLabels(node), o.describe(w));
            }
        }
    }

    @Then("the pods of {string} run on {int} different nodes")
    public void differentNodes(String name, int expected) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        Set<String> nodes = new java.util.TreeSet<>();
        for (PodSpec p : w.pods()) if (o.nodeOf(p) != null) nodes.add(o.nodeOf(p));
        long running = w.pods().stream().filter(p -> o.nodeOf(p) != null).count();
        if (nodes.size() != expected || running != expected) {
            fail("the pods of \"" + name + "\" should run on " + expected + " different nodes, not " + nodes, o.describe(w));
        }
    }

    /** Every running pod of the workload is on a node with the same value of label {@code key}. */
    @Then("^the pods of \"([^\"]+)\" run within one (\\S+)$")
    public void withinOne(String name, String key) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        Set<String> values = new java.util.TreeSet<>();
        for (PodSpec p : w.pods()) {
            String node = o.nodeOf(p);
            if (node == null) fail("the pods of \"" + name + "\" should run within one " + key + ", " + p.name() + " does not run", o.describe(w));
            String v = o.nodeLabels(node).get(key);
            values.add(v == null ? "(no " + key + ")" : v);
        }
        if (values.size() != 1) fail("the pods of \"" + name + "\" should run within one " + key + ", not " + values, o.describe(w));
    }

    /** Every pod evicted by the action ran on nodes with one value of label {@code key}. */
    @Then("^every pod evicted by (reclaim|preemption) ran within one (\\S+)$")
    public void evictedWithinOne(String word, String key) {
        Outcome o = outcome();
        String action = action(word);
        List<Eviction> found = o.evictions().stream().filter(e -> e.action().equals(action)).toList();
        if (found.isEmpty()) fail("some pod should have been evicted by " + word, o.describeEvictions());
        Set<String> values = new java.util.TreeSet<>();
        for (Eviction e : found) {
            String v = o.nodeLabels(e.node()).get(key);
            values.add(v == null ? "(no " + key + ")" : v);
        }
        if (values.size() != 1) {
            fail("every pod evicted by " + word + " should have run within one " + key + ", not " + values,
                    o.describeEvictions());
        }
    }

    @Then("^every pod evicted by (reclaim|preemption) ran on a node labelled ([^=\\s]+)=(\\S+)$")
    public void evictedFromLabelled(String word, String key, String value) {
        Outcome o = outcome();
        String action = action(word);
        List<Eviction> found = o.evictions().stream().filter(e -> e.action().equals(action)).toList();
        if (found.isEmpty()) fail("some pod should have been evicted by " + word, o.describeEvictions());
        for (Eviction e : found) {
            if (!value.equals(o.nodeLabels(e.node()).get(key))) {
                fail("every pod evicted by " + word + " should have run on a node labelled " + key + "=" + value + ", "
                        + e.pod() + " ran on " + e.node() + " " + o.nodeLabels(e.node()), o.describeEvictions());
            }
        }
    }

    // ---- queues and GPUs ---------------------------------------------------------------------------------------------

    @Then("queue {string} holds {int} GPU(s)")
    public void queueHolds(String queue, int gpus) {
        Outcome o = outcome();
        QueueStatus q = o.queue(queue);
        long milli = o.gpuMilli(q.allocated());
        if (milli != gpus * 1000L) fail("queue \"" + queue + "\" should hold " + gpus + " GPUs, not " + Outcome.gpus(milli), o.describeQueues());
    }

    /**
     * Shares are computed in thousandths of a GPU, and weighted water-filling may leave a few thousandths undistributed
     * (32 GPUs at 1:7 give 3.999 and 28), so a difference under {@value #SHARE_ROUNDING_MILLI} thousandths is rounding.
     */
    @Then("queue {string} deserves {int} GPU(s)")
    public void queueDeserves(String queue, int gpus) {
        Outcome o = outcome();
        QueueStatus q = o.queue(queue);
        long milli = o.gpuMilli(q.deserved());
        if (Math.abs(milli - gpus * 1000L) >= SHARE_ROUNDING_MILLI) fail("queue \"" + queue + "\" should deserve " + gpus + " GPUs, not " + Outcome.gpus(milli), o.describeQueues());
    }

    @Then("{int} GPU(s) is/are idle")
    public void idle(int gpus) {
        Outcome o = outcome();
        long milli = o.idleGpuMilli();
        if (milli != gpus * 1000L) fail(gpus + " GPUs should be idle, not " + Outcome.gpus(milli), o.describeQueues());
    }

    @Then("reading the manifests gave a notice containing {string}")
    public void notice(String text) {
        Outcome o = outcome();
        if (o.notices().stream().noneMatch(n -> n.contains(text))) {
            fail("a notice should contain \"" + text + "\"; the notices were " + o.notices(), o.describeQueues());
        }
    }

    // ---- reservation and backfill (reservation in policy.yaml) -------------------------------------------------------

    /** The first cycle that bound a pod of the workload, less its earliest arrival, in seconds; -1: never bound. */
    private static long startDelay(Outcome o, Outcome.Found w) {
        Set<String> pods = podKeys(w);
        int arrived = w.pods().stream().mapToInt(PodSpec::arrivalCycle).min().orElse(0);
        for (dev.arbiter.decision.CycleResult c : o.result().cycles()) {
            for (dev.arbiter.decision.Binding b : c.bindings()) if (pods.contains(b.pod())) return c.cycle() - arrived;
        }
        return -1;
    }

    @Then("{string} started within {int} minute(s) of arriving")
    public void startedWithin(String name, int minutes) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        long delay = startDelay(o, w);
        if (delay < 0 || delay > minutes * 60L) {
            fail("\"" + name + "\" should have started within " + minutes + " minutes of arriving, but "
                    + (delay < 0 ? "it never started" : "it started after " + dev.arbiter.model.Runtimes.show(delay)), o.describe(w));
        }
    }

    @Then("{string} did not start within {int} minute(s) of arriving")
    public void notStartedWithin(String name, int minutes) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        long delay = startDelay(o, w);
        if (delay >= 0 && delay <= minutes * 60L) {
            fail("\"" + name + "\" should not have started within " + minutes + " minutes of arriving, but it started after "
                    + dev.arbiter.model.Runtimes.show(delay), o.describe(w));
        }
    }

    /** How many pods of {@code name} some cycle bound on a node that cycle held reserved for {@code holder}. */
    private static int boundOnReserved(Outcome o, String name, String holder) {
        Set<String> pods = podKeys(o.workload(name));
        Set<String> groups = new java.util.HashSet<>(o.workload(holder).podGroups());
        int n = 0;
        for (dev.arbiter.decision.CycleResult c : o.result().cycles()) {
            Set<String> reserved = new java.util.HashSet<>();
            for (dev.arbiter.decision.Reservation r : c.reservations()) if (groups.contains(r.job())) reserved.addAll(r.nodes());
            for (dev.arbiter.decision.Binding b : c.bindings()) if (pods.contains(b.pod()) && reserved.contains(b.node())) n++;
        }
        return n;
    }

    @Then("{string} ran on a node reserved for {string}")
    public void ranOnReserved(String name, String holder) {
        Outcome o = outcome();
        if (boundOnReserved(o, name, holder) == 0) {
            fail("a pod of \"" + name + "\" should have run on a node reserved for \"" + holder + "\" (backfill)",
                    o.describe(o.workload(name)));
        }
    }

    @Then("{string} never ran on a node reserved for {string}")
    public void neverRanOnReserved(String name, String holder) {
        Outcome o = outcome();
        int n = boundOnReserved(o, name, holder);
        if (n > 0) fail(n + " pod(s) of \"" + name + "\" ran on nodes reserved for \"" + holder + "\"", o.describe(o.workload(name)));
    }

    @Then("{string} reserved {int} node(s)")
    public void reservedNodes(String name, int nodes) {
        Outcome o = outcome();
        Outcome.Found w = o.workload(name);
        Set<Integer> seen = new java.util.TreeSet<>();
        for (dev.arbiter.decision.CycleResult c : o.result().cycles()) {
            for (dev.arbiter.decision.Reservation r : c.reservations()) if (w.podGroups().contains(r.job())) seen.add(r.nodes().size());
        }
        if (!seen.equals(Set.of(nodes))) {
            fail("\"" + name + "\" should have reserved " + nodes + " nodes, but its reservations held " + (seen.isEmpty() ? "none" : seen + " nodes"),
                    o.describe(w));
        }
    }

    @Then("no reservation is held")
    public void noReservation() {
        Outcome o = outcome();
        List<dev.arbiter.decision.CycleResult> cycles = o.result().cycles();
        if (cycles.isEmpty()) return;
        List<dev.arbiter.decision.Reservation> last = cycles.get(cycles.size() - 1).reservations();
        if (!last.isEmpty()) fail("no reservation should be held after the last cycle, but " + last, o.describeQueues());
    }

    // ---- helpers -----------------------------------------------------------------------------------------------------

    private static Set<String> podKeys(Outcome.Found w) {
        return w.pods().stream().map(PodSpec::key).collect(java.util.stream.Collectors.toSet());
    }

    private static void fail(String expectation, String actually) {
        throw new AssertionError(expectation + "\n" + actually);
    }
}
