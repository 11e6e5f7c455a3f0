package dev.arbiter.engine.kept;

import dev.arbiter.decision.Refusal;

import dev.arbiter.engine.placement.EvictionShape;
import dev.arbiter.engine.state.Job;

import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.NoPreemption;
import dev.arbiter.model.Resources;

/**
 * What a {@link WorkingCopy} remembers of one of its jobs from cycle to cycle, beside the job itself (which keeps only
 * what the cycle under way concludes): the copy's own bookkeeping, which only the copy reads and writes; the job's
 * parking ({@code CycleWork}, issue 17); and its eviction shape. One record per job, found by the job's
 * {@link Job#serial} in the copy's table ({@link WorkingCopy#kept}): the steps look a job's record up once per step.
 */
public final class KeptJob {
    final Job job;
    /** The last cycle whose snapshot had it, and the last that filed it in its queue's list. */
    int lastSeen;
    int filed;
    /** A task joined or left since the last cycle (a new job's tasks are all new): its task lists are filed again. */
    boolean membersChanged = true;
    /**
     * Its tasks are the very ones of the last cycle (set as the copy finishes each cycle): what was worked out from
     * them then still holds.
     */
    boolean sameTasks;
    /** The minimum resources derived from its tasks in the last cycle that changed them. */
    Resources derivedMinResources;

    KeptJob(Job job) {
        this.job = job;
    }

    // ---- parking (CycleWork#staysParked) -----------------------------------------------------------------------

    /**
     * Parked: the job could not start in the last cycle it was walked, and left no trace there. Its reason and rule
     * after each of that cycle's steps, its phase, and the rules' gang requirement and no-preemption decision for it
     * then; {@code stepReasons} and {@code stepRules} are this cycle's, step by step.
     */
    private boolean parked;
    private Refusal[] parkedReasons, stepReasons;
    private String[] parkedRules, stepRules;
    private String parkedPhase;
    private GangRequirement parkedGang;
    private NoPreemption parkedNever;
    /** The last cycle of its working copy ({@code WorkingCluster#copyCycle}) that passed over it. */
    private int passedIn = -1;
    /** Whether its tasks' shape lets it be parked: 0 not yet asked of them, 1 yes, 2 no. */
    private byte parkShape;

    /** Its tasks changed: what parking worked out from them no longer holds. */
    void tasksChanged() {
        parkShape = 0;
    }

    /** Its tasks are the very ones of the last cycle. */
    public boolean sameTasks() {
        return sameTasks;
    }

    /** Whether an earlier cycle parked it (and no cycle since walked it without parking it again). */
    public boolean parked() {
        return parked;
    }

    /** Its phase, gang requirement and no-preemption decision when it was parked. */
    public String parkedPhase() {
        return parkedPhase;
    }

    public GangRequirement parkedGang() {
        return parkedGang;
    }

    public NoPreemption parkedNever() {
        return parkedNever;
    }

    /** Its reason after step {@code step} of the cycle that parked it, and the rule that gave it. */
    public Refusal parkedReason(int step) {
        return parkedReasons[step];
    }

    public String parkedRule(int step) {
        return parkedRules[step];
    }

    /** Whether the copy's cycle {@code copyCycle} passed over it. */
    public boolean passedIn(int copyCycle) {
        return passedIn == copyCycle;
    }

    /** The copy's cycle {@code copyCycle} passes over it. */
    public void passOver(int copyCycle) {
        passedIn = copyCycle;
    }

    /** Notes its reason and rule after step {@code step} of this cycle's {@code steps}. */
    public void noteStep(int step, int steps, Refusal reason, String rule) {
        if (stepReasons == null) {
            stepReasons = new Refusal[steps];
            stepRules = new String[steps];
        }
        stepReasons[step] = reason;
        stepRules[step] = rule;
    }

    /** The cycle walked it and does not park it. */
    public void unpark() {
        parked = false;
    }

    /**
     * Parks it: its reason and rule after the last of the cycle's {@code steps} are these, those after the earlier
     * steps the ones {@link #noteStep} noted; and its phase, gang requirement and no-preemption decision these.
     */
    public void park(int steps, Refusal reason, String rule, String phase, GangRequirement gang, NoPreemption never) {
        parked = true;
        noteStep(steps - 1, steps, reason, rule);
        Refusal[] r = parkedReasons;
        String[] rr = parkedRules;
        parkedReasons = stepReasons;
        parkedRules = stepRules;
        stepReasons = r;
        stepRules = rr;
        parkedPhase = phase;
        parkedGang = gang;
        parkedNever = never;
    }

    /** Whether its tasks' shape was asked of since they last changed ({@link #shapeParks}). */
    public boolean shapeKnown() {
        return parkShape != 0;
    }

    /** Whether its tasks' shape lets it be parked, as last {@link #shapeParks(boolean) noted}. */
    public boolean shapeParks() {
        return parkShape == 1;
    }

    public void shapeParks(boolean parks) {
        parkShape = parks ? (byte) 1 : 2;
    }

    // ---- eviction shape (GangEviction) -------------------------------------------------------------------------

    /**
     * Its shape for the eviction steps' remembered refusals ({@link EvictionShape}), kept across cycles while it
     * still holds; null until asked.
     */
    private EvictionShape evictionShape;

    public EvictionShape evictionShape() {
        return evictionShape;
    }

    public void evictionShape(EvictionShape shape) {
        evictionShape = shape;
    }
}
