package dev.arbiter.engine;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.List;

/**
 * A node during one cycle: what is used on it (bound pods of every scheduler, plus what this cycle placed or
 * pipelined) and the tasks of this scheduler running there (possible victims).
 */
final class NodeState {
    final NodeSpec spec;
    final int index;
    final List<Task> tasks = new ArrayList<>();
    private Resources used = Resources.NONE;
    private Resources free;
    /** Held by terminating pods: free once they are gone, promised to whoever pipelines onto it. */
    private Resources releasing = Resources.NONE;

    NodeState(NodeSpec spec, int index) {
        this.spec = spec;
        this.index = index;
        this.free = spec.allocatable();
    }

    void take(Resources r) {
        used = used.add(r);
        free = free.subtract(r);
    }

    void give(Resources r) {
        used = used.subtract(r);
        free = free.add(r);
    }

    Resources used() {
        return used;
    }

    /** A terminating pod: it holds {@code r} now and gives it back when it is gone. */
    void release(Resources r) {
        take(r);
        releasing = releasing.add(r);
    }

    /** What will be free once every terminating pod on the node is gone (Volcano's FutureIdle). */
    Resources futureFree() {
        return free.add(releasing);
    }

    String name() {
        return spec.name();
    }

    /** Allocatable less used; may be negative in a dimension if the cluster was over-committed before we came. */
    Resources free() {
        return free;
    }

    @Override
    public String toString() {
        return name();
    }
}
