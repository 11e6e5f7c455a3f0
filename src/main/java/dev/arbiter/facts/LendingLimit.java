package dev.arbiter.facts;

import dev.arbiter.model.Caps;

/**
 * The most of its fair share a queue lends to other queues, per named resource (Kueue's {@code lendingLimit}): the
 * rest of the share it would deserve asking for everything is kept for it, never lent (the fair-share step holds it
 * out of every other queue's share and capability, and states it as {@link QueueShare#getKept()}). A resource
 * {@code limit} does not name is lent without limit; a bound of zero lends none of it. {@code rule} inserted it.
 */
public record LendingLimit(String queue, Caps limit, String rule) {}
