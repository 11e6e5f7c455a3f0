package dev.arbiter.facts;

/**
 * A job's tasks bind only when at least {@code minMember} of them (and {@code minTaskMember} of each role) run or can be placed in the same cycle; otherwise none of them binds.
 * {@code rule} is the name of the rule that inserted it.
 */
public record GangRequirement(String job, int minMember, java.util.Map<String, Integer> minTaskMember, String rule) {
    public GangRequirement {
        minTaskMember = java.util.Map.copyOf(minTaskMember);
    }
}
