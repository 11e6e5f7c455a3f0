package dev.arbiter.sim;

import dev.arbiter.decision.CycleResult;
import java.util.List;
import java.util.Objects;

/**
 * Compares two simulations of the same cluster cycle by cycle, for checks that a rules session kept across cycles
 * decides what fresh sessions decide: the bindings, evictions, PodGroup and Queue statuses, nominations and wake-ups
 * (not the rules that fired: a kept session does not fire again a match that still holds).
 */
public final class KeptSessionCheck {
    private KeptSessionCheck() {}

    /** The first difference, as one line naming the cycle and what differs; null when the decisions are the same. */
    public static String firstDifference(SimulationResult expected, SimulationResult actual) {
        List<CycleResult> a = expected.cycles();
        List<CycleResult> b = actual.cycles();
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            String d = firstDifference(a.get(i), b.get(i));
            if (d != null) return "cycle " + a.get(i).cycle() + ": " + d;
        }
        return a.size() == b.size() ? null : "ran " + a.size() + " cycles against " + b.size();
    }

    /** The first difference between two cycles' decisions, or null. */
    public static String firstDifference(CycleResult a, CycleResult b) {
        if (!a.bindings().equals(b.bindings())) return "bindings " + a.bindings() + " against " + b.bindings();
        if (!a.evictions().equals(b.evictions())) return "evictions " + a.evictions() + " against " + b.evictions();
        if (!a.podGroups().equals(b.podGroups())) return "PodGroup statuses " + a.podGroups() + " against " + b.podGroups();
        if (!a.queues().equals(b.queues())) return "Queue statuses " + a.queues() + " against " + b.queues();
        if (!a.nominations().equals(b.nominations())) return "nominations " + a.nominations() + " against " + b.nominations();
        if (a.wakeAt() != b.wakeAt()) return "wake-up " + a.wakeAt() + " against " + b.wakeAt();
        if (!Objects.equals(a.rulesGeneration(), b.rulesGeneration())) return "rules generation differs";
        return null;
    }
}
