package dev.arbiter.whatif;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.sim.PodOutcome;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Which state {@code whatif} asks about, for a job named in manifests: the snapshot of a given cycle
 * ({@link #atCycle}), the end of the simulation when the job is still pending there ({@link #whereStillPending}), or a
 * live cluster's snapshot ({@link #now}). The state is the simulator's own: the snapshot its cycle would see, with the
 * nominations, usage and PodGroup phases the cycles before it left (the memory a cycle carries to the next).
 */
public final class WhatIfState {
    private WhatIfState() {}

    /**
     * The state asked about: {@code state}, the snapshot of {@code cycle}, and the job; {@code note} says how it was
     * chosen when that is not obvious; {@code answer} is set when there is nothing to search (the job runs).
     */
    public record At(ClusterSnapshot state, int cycle, String job, String note, Answer answer) {}

    /** The job ({@code ns/podgroup}) of the pod or PodGroup {@code subject}. */
    public static String jobOf(Manifests m, String subject) {
        for (PodSpec p : m.pods()) if (p.key().equals(subject)) return p.jobId();
        return subject;
    }

    /** A live cluster's snapshot: the objects as they are (the simulator's first cycle sees them). */
    public static At now(Simulator sim, Manifests m, Simulator.Options options, String subject) {
        return new At(sim.stateAt(m, options, 1), 1, jobOf(m, subject), null, null);
    }

    /**
     * The snapshot of cycle {@code n}. A job whose pods or PodGroup arrive after {@code n} is brought in at {@code n}
     * (its arrival cycles set to {@code n}), so that one may ask what would start it had it come earlier; the note
     * says so.
     */
    public static At atCycle(Simulator sim, Manifests m, Simulator.Options options, String subject, int n) {
        String job = jobOf(m, subject);
        int arrives = Integer.MAX_VALUE;
        for (PodSpec p : m.pods()) if (p.jobId().equals(job)) arrives = Math.min(arrives, p.arrivalCycle());
        for (PodGroupSpec g : m.podGroups()) if (g.key().equals(job)) arrives = Math.min(arrives, g.arrivalCycle());
        String note = null;
        if (arrives != Integer.MAX_VALUE && arrives > n) {
            m = broughtIn(m, job, n);
            note = job + " arrives at cycle " + arrives + "; asked as if it had arrived at cycle " + n;
        }
        return new At(sim.stateAt(m, options, n), n, job, note, null);
    }

    /**
     * The end of the simulation, when the job is still pending there: the snapshot of the cycle after the last one.
     * A job that runs by then is not pending: the answer says when it started.
     */
    public static At whereStillPending(Simulator sim, Manifests m, Simulator.Options options, String subject) {
        String job = jobOf(m, subject);
        SimulationResult r = sim.run(m, options);
        Set<String> keys = new java.util.HashSet<>();
        for (PodSpec p : m.pods()) if (p.jobId().equals(job)) keys.add(p.key());
        int running = 0;
        for (PodOutcome o : r.pods()) if (keys.contains(o.pod()) && "Running".equals(o.phase())) running++;
        int needed = 1;
        String queue = null;
        for (PodGroupSpec g : m.podGroups()) {
            if (g.key().equals(job)) {
                needed = Math.max(1, g.minMember());
                queue = g.queue();
            }
        }
        int last = r.lastCycle() == null ? 0 : r.lastCycle().cycle();
        if (running >= needed) {
            int started = 0;
            for (CycleResult c : r.cycles()) {
                int bound = 0;
                for (Binding b : c.bindings()) if (keys.contains(b.pod())) bound++;
                if (bound > 0 && started == 0) started = c.cycle();
            }
            String outcome = started == 0 ? "running before the first cycle (" + running + " of its pods, minMember " + needed + ")"
                    : "started in cycle " + started + " (" + running + " of its pods running at the end, minMember " + needed
                    + "); ask about an earlier moment with --at-cycle";
            return new At(null, last, job, null, new Answer(job, queue, last, Answer.Verdict.NOT_PENDING, null, null, outcome,
                    List.of(), List.of(), 0, 0));
        }
        int n = last + 1;
        return new At(sim.stateAt(m, options, n), n, job, null, null);
    }

    /** {@code m} with the job's pods and PodGroup arriving at cycle {@code n} at the latest. */
    static Manifests broughtIn(Manifests m, String job, int n) {
        List<PodSpec> pods = new ArrayList<>();
        for (PodSpec p : m.pods()) {
            if (!p.jobId().equals(job) || p.arrivalCycle() <= n) {
                pods.add(p);
                continue;
            }
            pods.add(new PodSpec(p.namespace(), p.name(), p.schedulerName(), p.nodeName(), p.phase(), p.priorityClassName(),
                    p.priority(), p.preemptionPolicy(), p.requests(), p.nodeSelector(), p.tolerations(), p.labels(),
                    p.annotations(), n, p.creationOrder(), p.terminating(), p.startedAt(), p.placement()));
        }
        List<PodGroupSpec> groups = new ArrayList<>();
        for (PodGroupSpec g : m.podGroups()) {
            groups.add(g.key().equals(job) && g.arrivalCycle() > n ? g.withArrival(n, g.creationOrder()) : g);
        }
        return new Manifests(m.nodes(), pods, groups, m.queues(), m.priorityClasses(), m.notices(), m.namespaceLabels(),
                m.hyperNodes(), m.queueUsage());
    }
}
