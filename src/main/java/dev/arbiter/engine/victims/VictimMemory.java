package dev.arbiter.engine.victims;

import dev.arbiter.engine.state.WorkingCluster;
import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.Task;

import java.util.BitSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the victim search of a kept working copy carries from one cycle to the next (issue 17): per terms key, the
 * nodes hosting a victim the terms allow and what those victims hold together ({@link VictimNodes}),
 * as they were when the cycle began, except on the nodes that cycle touched ({@link Entry#dirty}). A later cycle brings
 * an entry up to date from the nodes that may have changed since, instead of walking the victim pool again.
 *
 * <p>Whether the terms allow a running task reads only the task's job (its queue, by name; its priority), the task's
 * protection, whether it was evicted this cycle (an eviction touches its node) and the queues' eviction budgets (an
 * entry is only made and used while no queue has spent its budget). So on a node whose tasks are the same objects,
 * none of them changed protection and none belongs to a job whose priority may have changed, the answer is the one
 * remembered. The nodes that may differ ({@link #stale}) are: those whose bound pods changed (the working copy counts
 * them again), those the last cycles touched, those of tasks whose protection changed, and those of the running
 * tasks of jobs whose priority is worked out again from their pods. The memory holds while the working copy is the
 * same (same nodes, same node indexes), the queue names are the same (terms test queues by name) and the classes'
 * priorities stand; otherwise it is dropped.
 */
public final class VictimMemory {
    /** At most this many terms keys are carried (a cycle asks a few dozen). */
    static final int MAX_ENTRIES = 64;

    /** An entry: exact on every node but those in {@code dirty}. */
    public record Entry(VictimNodes nodes, BitSet dirty) {}

    /** The protection of a running task as the terms read it: none, from reclaim only, or from every eviction. */
    static final byte UNPROTECTED = 0, RECLAIM_ONLY = 1, ALL = 2;

    private final Object copyEpoch;
    private final Set<String> queueNames;
    private final Map<Object, Entry> entries;
    /** The protected running tasks of the cycle that made it, by {@link #protectionOf}. */
    private final IdentityHashMap<Task, Byte> protections;

    private VictimMemory(Object copyEpoch, Set<String> queueNames, Map<Object, Entry> entries,
                         IdentityHashMap<Task, Byte> protections) {
        this.copyEpoch = copyEpoch;
        this.queueNames = queueNames;
        this.entries = entries;
        this.protections = protections;
    }

    static byte protectionOf(Task t) {
        if (t.protection == null) return UNPROTECTED;
        return t.protection.coversPreemption() ? ALL : RECLAIM_ONLY;
    }

    /** The protections of {@code protectedRunning}, by task. */
    static IdentityHashMap<Task, Byte> protections(List<Task> protectedRunning) {
        IdentityHashMap<Task, Byte> out = new IdentityHashMap<>(protectedRunning.size() * 2);
        for (Task t : protectedRunning) out.put(t, protectionOf(t));
        return out;
    }

    /** The entry for {@code termsKey}, or null. */
    Entry entry(Object termsKey) {
        return entries.get(termsKey);
    }

    /**
     * The nodes that may have changed for the terms since this memory was made, as {@code state} begins its cycle
     * with {@code protections} ({@link #protections}); null when the memory does not hold for it at all.
     */
    BitSet stale(WorkingCluster state, IdentityHashMap<Task, Byte> protections) {
        // (the jobs' priorities stand only while the classes' do: sameJobPriorities implies samePriorities)
        if (state.copyEpoch != copyEpoch || state.recounted == null || !state.sameJobPriorities
                || !queueNames.equals(state.queues.keySet())) {
            return null;
        }
        BitSet stale = (BitSet) state.recounted.clone();
        protections.forEach((t, p) -> {
            Byte was = this.protections.get(t);
            if (was == null || was.byteValue() != p.byteValue()) stale.set(t.node.index);
        });
        this.protections.forEach((t, p) -> {
            if (!protections.containsKey(t)) stale.set(t.node.index);
        });
        if (state.fromPods != null) {
            // A job without a priority class takes the highest of its pods' priorities: new tasks may change it.
            for (Job j : state.jobsWithNewTasks) {
                if (j.priorityClassName != null) continue;
                for (Task t : j.running) stale.set(t.node.index);
            }
        }
        return stale;
    }

    /**
     * The memory for the next cycle: {@code made} (entries worked out this cycle, exact as it began except on the
     * nodes it touched, {@code touched}) and, while {@code carried} held ({@code stale} not null), its entries this
     * cycle did not replace, their dirty nodes grown by {@code stale} and {@code touched}.
     */
    static VictimMemory next(WorkingCluster state, IdentityHashMap<Task, Byte> protections,
                             Map<Object, VictimNodes> made, BitSet touched,
                             VictimMemory carried, BitSet stale) {
        Map<Object, Entry> entries = new HashMap<>();
        made.forEach((key, nodes) -> entries.put(key, new Entry(nodes, touched)));
        if (carried != null && stale != null) {
            for (Map.Entry<Object, Entry> e : carried.entries.entrySet()) {
                if (entries.size() >= MAX_ENTRIES) break;
                if (entries.containsKey(e.getKey())) continue;
                BitSet dirty = (BitSet) e.getValue().dirty().clone();
                dirty.or(stale);
                dirty.or(touched);
                entries.put(e.getKey(), new Entry(e.getValue().nodes(), dirty));
            }
        }
        return new VictimMemory(state.copyEpoch, Set.copyOf(state.queues.keySet()), entries, protections);
    }
}
