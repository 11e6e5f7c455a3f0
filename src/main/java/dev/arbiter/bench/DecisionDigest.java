package dev.arbiter.bench;

import dev.arbiter.decision.CycleResult;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A digest of what cycles decided — every binding, eviction and nomination in order, every PodGroup and Queue status,
 * the wake-up time — so that two builds of the engine can be shown to decide identically on the same fleet (a
 * refactoring's proof). Timings and rule traces are left out: they differ between runs of the same build.
 */
public final class DecisionDigest {
    private final MessageDigest md;

    public DecisionDigest() {
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Adds one cycle's decisions. */
    public DecisionDigest add(CycleResult r) {
        line("cycle " + r.cycle() + " wake " + r.wakeAt());
        r.bindings().forEach(b -> line(b.toString()));
        r.evictions().forEach(e -> line(e.toString()));
        r.nominations().forEach(n -> line(n.toString()));
        r.podGroups().forEach(g -> line(g.toString()));
        r.queues().forEach(q -> line(decided(q)));
        return this;
    }

    /**
     * A queue's status as decided: its share, allocation, job counts and reason. The figures kept beside them for
     * Volcano's metrics (request, inqueue, capability, real capability) restate the snapshot and the shares, so they
     * are left out, and digests stay comparable with builds from before they were kept (the record's text then).
     */
    private static String decided(dev.arbiter.decision.QueueStatus q) {
        return "QueueStatus[queue=" + q.queue() + ", parent=" + q.parent() + ", weight=" + q.weight() + ", state="
                + q.state() + ", deserved=" + q.deserved() + ", allocated=" + q.allocated() + ", pendingJobs="
                + q.pendingJobs() + ", inqueueJobs=" + q.inqueueJobs() + ", runningJobs=" + q.runningJobs() + ", reason="
                + q.reason() + "]";
    }

    /** The first 16 hex digits of the digest so far. */
    public String hex() {
        try {
            return HexFormat.of().formatHex(((MessageDigest) md.clone()).digest()).substring(0, 16);
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The digest of one cycle's decisions. */
    public static String of(CycleResult r) {
        return new DecisionDigest().add(r).hex();
    }

    private void line(String s) {
        md.update(s.getBytes(StandardCharsets.UTF_8));
        md.update((byte) '\n');
    }
}
