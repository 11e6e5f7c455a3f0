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
        r.queues().forEach(q -> line(q.toString()));
        return this;
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
