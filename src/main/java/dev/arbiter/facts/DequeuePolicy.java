package dev.arbiter.facts;

import dev.arbiter.policy.DequeueStrategy;

/**
 * How a queue hands out its jobs: {@link DequeueStrategy#TRAVERSE} (a job that cannot start is skipped and the next
 * is tried) or {@link DequeueStrategy#FIFO} (the head job blocks the queue until it starts). {@code rule} inserted it.
 */
public record DequeuePolicy(String queue, DequeueStrategy strategy, String rule) {}
