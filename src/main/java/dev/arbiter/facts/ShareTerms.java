package dev.arbiter.facts;

import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;

/**
 * The terms on which a queue takes part in weighted water-filling among its siblings (Volcano's proportion): its
 * {@code weight}, a {@code capability} it never deserves more than (null: none beyond the cluster), and a
 * {@code guarantee} reserved for it. The fair-share step (Java) computes every queue's {@link QueueShare} from these.
 * {@code rule} inserted it.
 */
public record ShareTerms(String queue, int weight, Caps capability, Resources guarantee, String rule) {}
