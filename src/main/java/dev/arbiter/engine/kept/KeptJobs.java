package dev.arbiter.engine.kept;

import dev.arbiter.engine.state.Job;
import java.util.Arrays;

/**
 * A working copy's table of what it remembers of its jobs ({@link KeptJob}), indexed by the jobs' serials, which it
 * hands out: a job's record is one array read away. Serials of retired jobs are handed out again.
 */
final class KeptJobs {
    private KeptJob[] bySerial = new KeptJob[64];
    private int next;
    private int[] free = new int[16];
    private int freeCount;

    /** A serial for a new job (one {@link #add} then files). */
    int newSerial() {
        return freeCount > 0 ? free[--freeCount] : next++;
    }

    /** A new record for {@code j}, numbered by {@link #newSerial}. */
    KeptJob add(Job j) {
        if (j.serial >= bySerial.length) bySerial = Arrays.copyOf(bySerial, Math.max(2 * bySerial.length, j.serial + 1));
        return bySerial[j.serial] = new KeptJob(j);
    }

    /** The record of {@code j}; null when {@code j} is none of this table's jobs (a fresh index's, a retired one). */
    KeptJob of(Job j) {
        int s = j.serial;
        if (s < 0 || s >= bySerial.length) return null;
        KeptJob k = bySerial[s];
        return k != null && k.job == j ? k : null;
    }

    /** Forgets a retired job; its serial is handed out again. */
    void remove(Job j) {
        if (of(j) == null) return;
        bySerial[j.serial] = null;
        if (freeCount == free.length) free = Arrays.copyOf(free, 2 * freeCount);
        free[freeCount++] = j.serial;
    }

    void clear() {
        Arrays.fill(bySerial, null);
        next = 0;
        freeCount = 0;
    }
}
