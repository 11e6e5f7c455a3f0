package dev.arbiter.facts;

/**
 * How a queue hands out its jobs: {@code traverse} (a job that cannot start is skipped and the next is tried) or
 * {@code fifo} (the head job blocks the queue until it starts — strict ordering). {@code rule} inserted it.
 */
public record DequeuePolicy(String queue, String strategy, String rule) {}
