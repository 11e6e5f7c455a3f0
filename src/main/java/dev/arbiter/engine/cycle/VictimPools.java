package dev.arbiter.engine.cycle;

import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.QueueState;
import dev.arbiter.engine.state.Task;
import dev.arbiter.engine.state.WorkingCluster;

import dev.arbiter.model.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the eviction steps offer the victim search: preemption's candidates (a queue's running tasks, lowest job
 * priority first), and reclaim's — the victim queues a job may reach under its grants' ceilings, their floors, and
 * their running tasks that no rule protects.
 */
final class VictimPools {
    private final WorkingCluster state;

    VictimPools(WorkingCluster state) {
        this.state = state;
    }

    /** How many of {@code byPriority} (sorted by job priority) have a job priority strictly below {@code p}. */
    static int countBelow(List<Task> byPriority, int p) {
        int lo = 0, hi = byPriority.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (byPriority.get(mid).job.priority < p) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /**
     * The queue's running tasks, lowest job priority first, each job's together in its order, jobs of one priority
     * in job order: as the tasks sorted by their job's priority, but sorted job by job (a queue runs thousands of
     * tasks, in far fewer jobs).
     */
    List<Task> runningByJobPriority(QueueState q) {
        List<Job> jobs = new ArrayList<>();
        int count = 0;
        for (Job j : q.jobs) {
            if (j.running.isEmpty()) continue;
            jobs.add(j);
            count += j.running.size();
        }
        jobs.sort(Comparator.comparingInt(j -> j.priority));
        List<Task> out = new ArrayList<>(count);
        for (Job j : jobs) out.addAll(j.running);
        return out;
    }

    /** Running tasks of the named queues. */
    List<Task> runningIn(java.util.Collection<String> queueNames) {
        List<Task> out = new ArrayList<>();
        for (String name : queueNames) {
            QueueState vq = state.queues.get(name);
            if (vq == null) continue;
            for (Job vj : vq.jobs) out.addAll(vj.running);
        }
        return out;
    }

    /**
     * The victim queues a job of queue {@code q} needing {@code need} may reclaim from (those whose grant's ceiling
     * it starts under), with what reclaim reads of that set, remembered per set for the queue's pass: thousands of
     * starving jobs, few sets. {@code victimQueues} is {@code floors}'s keys in its order.
     */
    static Reach reach(QueueState q, Resources need, String[] victimQueues, Map<String, Resources> floors,
                       Map<String, Resources> ceilings, Map<String, dev.arbiter.policy.ReclaimFit> fits, int levels,
                       Map<Long, Reach> reaches) {
        boolean bits = victimQueues.length <= Long.SIZE;
        long set = 0;
        Map<String, Resources> usable = bits ? null : new HashMap<>();
        for (int i = 0; i < victimQueues.length; i++) {
            if (!AncestorShares.admits(fits.get(victimQueues[i]), q, need, ceilings.get(victimQueues[i]), levels)) continue;
            if (bits) set |= 1L << i;
            else usable.put(victimQueues[i], floors.get(victimQueues[i]));
        }
        if (!bits) return new Reach(usable);
        Reach known = reaches.get(set);
        if (known == null) {
            usable = new HashMap<>();
            for (int i = 0; i < victimQueues.length; i++) {
                if ((set & 1L << i) != 0) usable.put(victimQueues[i], floors.get(victimQueues[i]));
            }
            reaches.put(set, known = new Reach(usable));
        }
        return known;
    }

    /** A set of usable victim queues: their floors, their names, and (once read) their pool and terms. */
    static final class Reach {
        final Map<String, Resources> usable;
        final java.util.TreeSet<String> names;
        List<Task> pool;
        Usable terms;

        Reach(Map<String, Resources> usable) {
            this.usable = usable;
            this.names = new java.util.TreeSet<>(usable.keySet());
        }
    }

    /** Reclaim's terms for one set of usable victim queues: their key, and those of the queues that exist. */
    record Usable(TermsKey key, QueueState[] queues) {}

    /** The queues of these names that exist this cycle. */
    QueueState[] existing(java.util.Set<String> names) {
        List<QueueState> out = new ArrayList<>();
        for (String name : names) {
            QueueState vq = state.queues.get(name);
            if (vq != null) out.add(vq);
        }
        return out.toArray(new QueueState[0]);
    }

    /**
     * Whether the job's queue is one of {@code usable}'s ({@code states}: those of them that exist): asked of every
     * task a victim search meets, so by the job's queue, not its name.
     */
    static boolean usableQueue(Job job, Map<String, Resources> usable, QueueState[] states) {
        QueueState qs = job.queueState;
        if (qs == null) return usable.containsKey(job.queue);
        for (QueueState s : states) if (s == qs) return true;
        return false;
    }

    /**
     * Whether one of the victim queues holds more than its floor, or for those in {@code overDeserved}
     * ({@link dev.arbiter.policy.VictimTest#OVER_DESERVED}) more than its deserved share in some resource (one the
     * share does not name counts: its tasks go at once).
     */
    boolean anyAboveFloor(Map<String, Resources> floors, java.util.Set<String> overDeserved) {
        for (Map.Entry<String, Resources> f : floors.entrySet()) {
            QueueState vq = state.queues.get(f.getKey());
            if (vq == null) continue;
            Resources bound = overDeserved.contains(f.getKey()) ? vq.deserved() : f.getValue();
            if (!vq.allocated.fitsIn(bound)) return true;
        }
        return false;
    }

    /** Running tasks of the queues that no rule protects from reclaim. */
    List<Task> runningUnprotected(java.util.Collection<String> queueNames) {
        List<List<Task>> parts = new ArrayList<>(queueNames.size());
        int size = 0;
        for (String name : queueNames) {
            List<Task> part = unprotectedIn.computeIfAbsent(name, this::unprotectedOf);
            if (part.isEmpty()) continue;
            parts.add(part);
            size += part.size();
        }
        return parts.size() == 1 ? parts.get(0) : new Joined(parts, size);
    }

    /**
     * Each queue's running tasks without protection, in job order, read once per reclaim step: the running lists and
     * the protections do not change while the eviction steps run (an eviction only marks its victim).
     */
    private final Map<String, List<Task>> unprotectedIn = new HashMap<>();

    /** A new reclaim step reads each queue's unprotected tasks again. */
    void newReclaimStep() {
        unprotectedIn.clear();
    }

    private List<Task> unprotectedOf(String queueName) {
        List<Task> out = new ArrayList<>();
        for (Task t : runningIn(List.of(queueName))) if (t.protection == null) out.add(t);
        return out;
    }

    /** Lists read one after the other, as one list: a pool of several queues without copying their tasks. */
    private static final class Joined extends java.util.AbstractList<Task> {
        private final List<List<Task>> parts;
        private final int size;

        Joined(List<List<Task>> parts, int size) {
            this.parts = parts;
            this.size = size;
        }

        @Override
        public Task get(int index) {
            java.util.Objects.checkIndex(index, size);
            for (List<Task> part : parts) {
                if (index < part.size()) return part.get(index);
                index -= part.size();
            }
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public java.util.Iterator<Task> iterator() {
            return new java.util.Iterator<>() {
                private int part;
                private int at;

                @Override
                public boolean hasNext() {
                    while (part < parts.size() && at == parts.get(part).size()) {
                        part++;
                        at = 0;
                    }
                    return part < parts.size();
                }

                @Override
                public Task next() {
                    if (!hasNext()) throw new java.util.NoSuchElementException();
                    return parts.get(part).get(at++);
                }
            };
        }
    }
}
