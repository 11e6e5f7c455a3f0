package dev.arbiter.whatif;

import java.util.List;

/**
 * What {@code arbiter whatif} found for one job at one cycle: whether it is pending, how it stands today (the reason
 * and the rule of the cycle's status), and the changes that would start it, cheapest first.
 *
 * @param job the job ({@code ns/podgroup})
 * @param queue its queue
 * @param cycle the cycle asked about (the state is that cycle's snapshot, before the rules decide)
 * @param verdict what was found
 * @param reason today's reason it does not start, in the words of the cycle's status (null when it starts)
 * @param rule the rule behind that reason, when one decided it
 * @param outcome for {@link Verdict#STARTS_UNCHANGED} and {@link Verdict#NOT_PENDING}: what happens or happened
 * @param remedies the changes that start it, cheapest first (all that were found; the command prints the first N)
 * @param notFound per kind of change tried without success, why: what {@code no change within reach} rests on
 * @param engineCycles how many cycles the real engine ran to check the candidates
 * @param millis how long the search took, in milliseconds
 */
public record Answer(String job, String queue, int cycle, Verdict verdict, String reason, String rule, String outcome,
                     List<Remedy> remedies, List<String> notFound, int engineCycles, long millis) {
    public Answer {
        remedies = List.copyOf(remedies);
        notFound = List.copyOf(notFound);
    }

    /** What the search concluded. */
    public enum Verdict {
        /** The job runs (at least minMember of its pods are bound): nothing to find. */
        NOT_PENDING,
        /** The engine starts the job in the next cycle (or after the evictions it makes) with no change. */
        STARTS_UNCHANGED,
        /** At least one change starts it. */
        CHANGES_FOUND,
        /** No change within reach starts it; {@link #notFound} says why for each kind. */
        NONE_IN_REACH
    }

    /**
     * One change that starts the job: its cost tier and cost (see {@link Cost}), what blocks the job today that this
     * change removes ({@code blocks}: the rule's or limit's words from the cycle's refusal), and how the job then starts
     * ({@code outcome}: {@code binds in cycle 31}, or the evictions first).
     */
    public record Remedy(Change change, Cost.Tier tier, long cost, String blocks, String outcome) {}
}
