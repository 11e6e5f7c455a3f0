package dev.arbiter.engine.victims;

import java.util.Set;

/**
 * The victim queues whose grants judge victims by {@link dev.arbiter.policy.VictimTest#OVER_DESERVED} (Volcano's
 * capacity plugin) instead of their floors, and how many levels of ancestors that test asks too ({@code levels}, the
 * plugin's {@code ancestorReclaimLevel}; the reclaiming queue's ancestors that many levels up may also admit its job).
 */
public record OverDeserved(Set<String> queues, int levels) {
    /** No queue judged so: every victim queue keeps its floor. */
    public static final OverDeserved NONE = new OverDeserved(Set.of(), 0);

    public boolean contains(String queue) {
        return !queues.isEmpty() && queues.contains(queue);
    }
}
