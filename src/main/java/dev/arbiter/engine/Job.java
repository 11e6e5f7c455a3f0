package dev.arbiter.engine;

import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A job during one cycle: a PodGroup (or a pod's implicit gang of one), its pending and running tasks, and what the
 * cycle has concluded about it so far.
 */
final class Job {
    final String id;
    final String namespace;
    final String name;
    final String queue;
    final int minMember;
    final Map<String, Integer> minTaskMember;
    final String priorityClassName;
    final boolean implicit;
    final long creationOrder;
    final String initialPhase;
    final List<Task> pending = new ArrayList<>();
    final List<Task> running = new ArrayList<>();
    Resources minResources;

    int priority;
    String phase;
    String reason;
    String reasonRule;
    boolean pipelined;

    Job(PodGroupSpec pg, boolean implicit) {
        this.id = pg.key();
        this.namespace = pg.namespace();
        this.name = pg.name();
        this.queue = pg.queue();
        this.minMember = Math.max(pg.minMember(), 0);
        this.minTaskMember = pg.minTaskMember();
        this.priorityClassName = pg.priorityClassName();
        this.implicit = implicit;
        this.creationOrder = pg.creationOrder();
        this.initialPhase = pg.phase() == null ? "Pending" : pg.phase();
        this.phase = initialPhase;
        this.minResources = pg.minResources();
    }

    /** Scratch for {@code VictimSelector}: how many members the search {@code countedBy} has chosen. */
    Object countedBy;
    int takenCount;

    /** Members bound this cycle (they run from now on, but are not yet possible victims). */
    int bound;

    /** Members that will be running after this cycle: running and not evicted, plus bound this cycle. */
    int liveMembers() {
        return liveRunning() + bound;
    }

    /** Running members not evicted this cycle. */
    int liveRunning() {
        int n = 0;
        for (Task t : running) if (!t.evicted) n++;
        return n;
    }

    Map<String, Integer> liveRunningByRole() {
        Map<String, Integer> m = new HashMap<>();
        for (Task t : running) if (!t.evicted) m.merge(t.pod.taskRole(), 1, Integer::sum);
        return m;
    }

    boolean hasPending() {
        for (Task t : pending) if (!t.placed) return true;
        return false;
    }

    void setReason(String reason, String rule) {
        this.reason = reason;
        this.reasonRule = rule;
    }

    @Override
    public String toString() {
        return id;
    }
}
