package dev.arbiter.engine.cycle;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * Tests that decide each snapshot twice, with a fresh scheduler and with one that keeps its rules session and working
 * copy across cycles: the kept one must decide as the fresh one does, statuses and reasons included.
 */
public abstract class KeptAgainstFresh {
    final Scheduler fresh = new Scheduler(Shipped.RULES, SchedulerConfig.simulatorDefault());
    public final Scheduler kept = fresh.withoutTrace().keepingSession().keepingWorkingCopy();

    @AfterEach
    void dropKept() {
        kept.dropSession();
    }

    /** Decides {@code s} both ways and returns the fresh scheduler's result. */
    CycleResult both(ClusterSnapshot s, int cycle) {
        CycleResult expected = fresh.schedule(s, cycle);
        KeptSessionTest.assertSameDecisions(expected, kept.schedule(s, cycle), "cycle " + cycle);
        return expected;
    }

    /** {@code s} later by {@code seconds}, with the pods and PodGroups of {@code more} added (the rest the same objects). */
    static ClusterSnapshot plus(ClusterSnapshot s, long seconds, ClusterSnapshot more) {
        List<PodSpec> pods = new ArrayList<>(s.pods());
        pods.addAll(more.pods());
        List<PodGroupSpec> groups = new ArrayList<>(s.podGroups());
        groups.addAll(more.podGroups());
        return with(s, seconds, pods, groups);
    }

    /** {@code s} later by {@code seconds}, with these pods and PodGroups (the rest the same objects). */
    static ClusterSnapshot with(ClusterSnapshot s, long seconds, List<PodSpec> pods, List<PodGroupSpec> groups) {
        return new ClusterSnapshot(s.nodes(), pods, groups, s.queues(), s.priorityClasses(), s.now() + seconds,
                s.nominations(), s.namespaceLabels(), s.hyperNodes());
    }
}
