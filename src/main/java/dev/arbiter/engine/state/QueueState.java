package dev.arbiter.engine.state;

import dev.arbiter.facts.AllocationLimit;
import dev.arbiter.facts.QueueShare;
import dev.arbiter.model.Caps;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.List;

/**
 * A queue during one cycle: its spec, its place in the queue tree, its fair-share fact, its live allocation and its
 * jobs in job order. {@code allocated} is the queue's whole subtree: placing or evicting a task charges or credits
 * the queue and every ancestor.
 */
public final class QueueState {
    public final QueueSpec spec;
    public final List<Job> jobs = new ArrayList<>();
    public final List<QueueState> children = new ArrayList<>();
    /** Null for a child of the implicit root. */
    public QueueState parent;
    /** 1 for a child of the root. */
    int depth = 1;
    /** Why the queue cannot take part in the tree (unknown parent, a cycle); such a queue is treated as Closed. */
    public String treeError;
    /** The queue's fair share, as the fair-share step computed it this cycle. */
    public QueueShare fairShare;
    public AllocationLimit limit;
    public Resources allocated = Resources.NONE;
    /** What the queue's subtree asks for: running plus pending tasks. */
    public Resources request = Resources.NONE;
    /** What its admitted, not yet running jobs reserve (their minimum resources less what runs), as the cycle began. */
    public Resources inqueue = Resources.NONE;
    public int cursor;
    /** Pods evicted from it this cycle (for the per-queue eviction budget); its eviction steps count them. */
    public int evicted;
    /** Its own guarantee: {@code spec.guarantee}, scaled down when all guarantees together pass the cluster. */
    Resources guarantee;
    /** What the queue reserves: its own guarantee or, if larger, what its children's guarantees add up to. */
    public Resources effectiveGuarantee = Resources.NONE;
    /** Something the queue's status should say although the queue works (e.g. a guarantee scaled down), or null. */
    public String note;

    QueueState(QueueSpec spec) {
        this.spec = spec;
        this.guarantee = spec.guarantee();
    }

    public String name() {
        return spec.name();
    }

    public Resources deserved() {
        return fairShare == null ? Resources.NONE : fairShare.getDeserved();
    }

    /** The last share worked out, and the allocation and deserved share it was worked out from. */
    private Resources shareOf, shareAgainst;
    private double share;

    /**
     * How much of its deserved share the queue holds: its allocation's dominant share against it. Allocation re-sorts
     * the queues after every job, comparing them by it: it is worked out again only when the allocation or the
     * deserved share is another vector.
     */
    public double share() {
        Resources d = deserved();
        if (allocated != shareOf || d != shareAgainst) {
            share = allocated.dominantShare(d);
            shareOf = allocated;
            shareAgainst = d;
        }
        return share;
    }

    /** Volcano's overused: the allocation covers the ceiling (the deserved share) in every dimension. */
    public boolean reached(Resources ceiling) {
        return ceiling.fitsIn(allocated);
    }

    public Caps hardCap() {
        return limit == null ? Caps.UNLIMITED : limit.hardCap();
    }

    public boolean open() {
        return treeError == null && "Open".equals(spec.state());
    }

    public String parentName() {
        return parent == null ? QueueSpec.ROOT : parent.name();
    }

    /** Adds {@code r} to this queue's and every ancestor's allocation. */
    public void charge(Resources r) {
        for (QueueState q = this; q != null; q = q.parent) q.allocated = q.allocated.add(r);
    }

    /** Takes {@code r} from this queue's and every ancestor's allocation. */
    public void credit(Resources r) {
        for (QueueState q = this; q != null; q = q.parent) q.allocated = q.allocated.subtract(r);
    }

    /** The first queue on the path to the root whose capability {@code r} would pass, or null. */
    public QueueState capabilityBlocker(Resources r) {
        for (QueueState q = this; q != null; q = q.parent) if (!q.hardCap().admits(q.allocated, r)) return q;
        return null;
    }

    /** Whether this queue is {@code ancestor} or lies in its subtree. */
    public boolean isWithin(QueueState ancestor) {
        for (QueueState q = this; q != null; q = q.parent) if (q == ancestor) return true;
        return false;
    }

    /** The nearest common ancestor of two queues, or null when it is the root. */
    public static QueueState commonAncestor(QueueState a, QueueState b) {
        // Trees are a few levels deep, and the victim order asks this in every comparison: walk, do not hash.
        for (QueueState q = b; q != null; q = q.parent) {
            for (QueueState up = a; up != null; up = up.parent) if (up == q) return q;
        }
        return null;
    }

    /** Steps from this queue up to the common ancestor with {@code other}: 1 for siblings, 2 for cousins, ... */
    public int distanceTo(QueueState other) {
        QueueState lca = commonAncestor(this, other);
        return depth - (lca == null ? 0 : lca.depth);
    }

    /** This queue and its ancestors strictly below {@code stop} (null = the root), nearest first. */
    public List<QueueState> pathUpTo(QueueState stop) {
        List<QueueState> out = new ArrayList<>();
        for (QueueState q = this; q != null && q != stop; q = q.parent) out.add(q);
        return out;
    }

    @Override
    public String toString() {
        return name();
    }
}
