package dev.arbiter.facts;

/**
 * The gang rule for every job at once: a job's tasks bind only when at least its PodGroup's {@code minMember} (and
 * {@code minTaskMember} per role) can run in the same cycle. A {@link GangRequirement} for one job overrides it.
 * Stating it once, rather than once per job, keeps a 100,000-pod cluster to one rule firing. {@code rule} inserted it.
 */
public record GangPolicy(String rule) {}
