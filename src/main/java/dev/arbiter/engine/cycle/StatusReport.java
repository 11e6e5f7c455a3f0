package dev.arbiter.engine.cycle;

import dev.arbiter.engine.placement.NetworkDomains;
import dev.arbiter.engine.rules.Policy;
import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.ReasonWords;
import dev.arbiter.decision.Refusal;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Caps;
import dev.arbiter.model.PodSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Step 7 of a cycle: a {@link PodGroupStatus} per job and a {@link QueueStatus} per queue. */
final class StatusReport {
    private final WorkingCluster state;
    private final Policy policy;
    private final Map<Job, Integer> boundThisCycle;
    private final NetworkDomains domains;
    private final List<Task> protectedRunning;

    StatusReport(CycleWork w) {
        this.protectedRunning = w.protectedRunning;
        this.state = w.state;
        this.policy = w.policy;
        this.boundThisCycle = w.boundThisCycle;
        this.domains = w.domains;
        this.words = w.reasonWords();
        this.words.nextCycle();
    }

    private static final Refusal NO_PENDING_PODS = new Refusal.NoPendingPods();
    private static final Refusal NOT_YET_SCHEDULED = new Refusal.NotYetScheduled();
    /** Words each of the cycle's refusals once (jobs refused alike share one refusal), kept with the working copy. */
    private final ReasonWords words;

    List<PodGroupStatus> podGroupStatuses() {
        List<PodGroupStatus> out = new ArrayList<>();
        for (Job j : state.jobs.values()) {
            int running = j.liveRunning() + boundThisCycle.getOrDefault(j, 0);
            int pending = j.pending.size() - boundThisCycle.getOrDefault(j, 0);
            String phase = running > 0 && running >= j.minMember ? "Running" : CycleWork.admitted(j) ? "Inqueue" : "Pending";
            Refusal why = phase.equals("Running") && !j.pipelined ? null : j.reason;
            if (why == null && !phase.equals("Running")) why = pending == 0 ? NO_PENDING_PODS : NOT_YET_SCHEDULED;
            out.add(new PodGroupStatus(j.id, j.queue, phase, j.minMember, running, pending, words.of(why),
                    why == null ? null : j.reasonRule, domains.domainOf(j), why));
        }
        return out;
    }

    List<QueueStatus> queueStatuses(List<PodGroupStatus> groups) {
        Map<String, int[]> counts = new HashMap<>();
        for (PodGroupStatus g : groups) {
            int[] c = counts.computeIfAbsent(g.queue(), k -> new int[3]);
            c[switch (g.phase()) { case "Pending" -> 0; case "Inqueue" -> 1; default -> 2; }]++;
        }
        List<QueueStatus> out = new ArrayList<>();
        for (QueueState q : state.queues.values()) {
            int[] c = counts.getOrDefault(q.name(), new int[3]);
            out.add(new QueueStatus(q.name(), q.parentName(), q.spec.weight(),
                    q.treeError != null ? "Closed" : q.spec.state(), q.deserved(), q.allocated, c[0], c[1], c[2],
                    q.treeError != null ? q.treeError : q.note, q.request, q.inqueue,
                    q.spec.capability() == null ? Caps.UNLIMITED : q.spec.capability(),
                    q.fairShare == null || q.fairShare.getRealCapability() == null ? Caps.UNLIMITED
                            : q.fairShare.getRealCapability()));
        }
        return out;
    }

    /**
     * When some admitted job still waits, the earliest time a running task's protection ends by itself, as the rule
     * that protects it states it ({@link dev.arbiter.facts.Protected#until()}; then the victim search may decide
     * otherwise); else -1.
     */
    long wakeAt(long now) {
        boolean waiting = false;
        for (Job j : state.jobs.values()) {
            if (CycleWork.admitted(j) && j.hasPending() && !j.pipelined) {
                waiting = true;
                break;
            }
        }
        if (!waiting) return -1;
        long wake = -1;
        for (Task t : protectedRunning) {
            if (!t.protection.expires()) continue;
            long expires = t.protection.until();
            if (expires > now && (wake < 0 || expires < wake)) wake = expires;
        }
        return wake;
    }
}
