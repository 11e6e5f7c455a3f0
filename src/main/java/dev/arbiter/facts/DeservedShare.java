package dev.arbiter.facts;

import dev.arbiter.model.Caps;
import dev.arbiter.model.Resources;

/**
 * A queue's deserved share stated outright (Volcano's capacity plugin), instead of computed by water-filling: the
 * queue deserves {@code deserved}, within the cluster and its {@code capability} (null: none). {@code rule} inserted it.
 */
public record DeservedShare(String queue, Resources deserved, Caps capability, String rule) {}
