package dev.arbiter.engine.state;

import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.List;

/**
 * A node during one cycle: what is used on it (bound pods of every scheduler, plus what this cycle placed or
 * pipelined) and the tasks of this scheduler running there (possible victims).
 */
public final class NodeState {
    public final NodeSpec spec;
    public final int index;
    public final List<Task> tasks = new ArrayList<>();
    private Resources used = Resources.NONE;
    private Resources free;
    /** Held by terminating pods: free once they are gone, promised to whoever pipelines onto it. */
    private Resources releasing = Resources.NONE;

    public NodeState(NodeSpec spec, int index) {
        this.spec = spec;
        this.index = index;
        this.free = spec.allocatable();
    }

    /**
     * The sorted node indexes this node is in, this cycle's and those kept across cycles ({@link NodeFitter.Statics});
     * they are keyed on free capacity, so every change moves the node in them.
     */
    private final List<FreeIndex> indexes = new ArrayList<>(2);
    private final List<FreeIndex> keptIndexes = new ArrayList<>(2);

    public void indexedIn(FreeIndex index) {
        indexes.add(index);
    }

    /** Files the node in a sorted index kept across cycles (until {@link #unindexed}). */
    public void indexedInKept(FreeIndex index) {
        keptIndexes.add(index);
    }

    /** How many kept indexes it is filed in (for tests: a dropped index must let go of its nodes). */
    public int keptIndexCount() {
        return keptIndexes.size();
    }

    /** The kept index is dropped. */
    public void unindexed(FreeIndex index) {
        for (int i = 0; i < keptIndexes.size(); i++) {
            if (keptIndexes.get(i) == index) {
                keptIndexes.remove(i);
                return;
            }
        }
    }

    public void take(Resources r) {
        change(used.add(r), free.subtract(r));
    }

    public void give(Resources r) {
        change(used.subtract(r), free.add(r));
    }

    /** How many times its free capacity changed (what {@link dev.arbiter.engine.placement.Shortfalls} worked out may be stale). */
    private int changes;

    public int changes() {
        return changes;
    }

    private void change(Resources newUsed, Resources newFree) {
        changes++;
        for (int i = 0; i < indexes.size(); i++) move(indexes.get(i), newFree);
        for (int i = 0; i < keptIndexes.size(); i++) move(keptIndexes.get(i), newFree);
        used = newUsed;
        free = newFree;
        freeDim = null;
    }

    private void move(FreeIndex index, Resources newFree) {
        index.move(this, freeMilli(index.dim), newFree.milli(index.dim));
    }

    /**
     * The free amount of the dimension last asked for by {@link #freeMilli}, kept because the sorted indexes compare
     * nodes by it over and over; forgotten whenever free capacity changes.
     */
    private String freeDim;
    private long freeDimMilli;

    /** {@code free().milli(dim)}. */
    public long freeMilli(String dim) {
        if (dim != freeDim) {
            freeDimMilli = free.milli(dim);
            freeDim = dim;
        }
        return freeDimMilli;
    }

    public Resources used() {
        return used;
    }

    /**
     * The pods bound to the node when the cycle begins, counted as {@link #take} would count them one by one, but
     * without two new vectors per pod: running balances per dimension, in pod order, with the same saturating
     * arithmetic, that become the node's usage at {@link #boundPodsCounted}.
     */
    private Resources.Sum usedBalance, freeBalance, releasingBalance;

    /** A bound pod holds {@code r}. */
    void takeBound(Resources r) {
        if (usedBalance == null) {
            usedBalance = new Resources.Sum().add(used);
            freeBalance = new Resources.Sum().add(free);
        }
        usedBalance.add(r);
        freeBalance.subtract(r);
    }

    /** A terminating bound pod: it holds {@code r} now and gives it back when it is gone. */
    void releaseBound(Resources r) {
        takeBound(r);
        if (releasingBalance == null) releasingBalance = new Resources.Sum().add(releasing);
        releasingBalance.add(r);
    }

    /** Every bound pod is counted: their balances become the node's usage. */
    public void boundPodsCounted() {
        if (usedBalance != null) change(usedBalance.toResources(), freeBalance.toResources());
        if (releasingBalance != null) releasing = releasingBalance.toResources();
        usedBalance = freeBalance = releasingBalance = null;
    }

    // ---- kept across cycles (WorkingCopy) ----------------------------------------------------------------------

    /** The usage its bound pods alone give it (what {@link #boundPodsCounted} last left), for the next cycle. */
    private Resources baseUsed = Resources.NONE, baseFree, baseReleasing = Resources.NONE;
    /** Its bound pods changed since {@link #keepBase}: count them again. */
    public boolean recount = true;

    /** Remembers the usage its bound pods give it, the state every later cycle starts from until they change. */
    public void keepBase() {
        baseUsed = used;
        baseFree = free;
        baseReleasing = releasing;
        recount = false;
    }

    /**
     * Starts a new cycle on this node: in none of the last cycle's indexes (re-filed in the kept ones if its free
     * capacity moves), with the usage of its bound pods and its tasks as last counted, or, when they changed, none yet
     * (the caller counts and files them again, then calls {@link #boundPodsCounted}).
     */
    public void startCycle() {
        indexes.clear();
        usedBalance = freeBalance = releasingBalance = null;
        if (recount) tasks.clear();
        Resources newFree = recount ? spec.allocatable() : baseFree;
        if (newFree != free && !newFree.equals(free)) {
            change(recount ? Resources.NONE : baseUsed, newFree); // re-filed in the kept indexes
        } else {
            used = recount ? Resources.NONE : baseUsed;
            freeDim = null;
        }
        releasing = recount ? Resources.NONE : baseReleasing;
    }

    public boolean hasReleasing() {
        return !releasing.isEmpty();
    }

    /** What will be free once every terminating pod on the node is gone (Volcano's FutureIdle). */
    public Resources futureFree() {
        return free.add(releasing);
    }

    public String name() {
        return spec.name();
    }

    /** Allocatable less used; may be negative in a dimension if the cluster was over-committed before we came. */
    public Resources free() {
        return free;
    }

    @Override
    public String toString() {
        return name();
    }
}
