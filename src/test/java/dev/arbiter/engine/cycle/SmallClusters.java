package dev.arbiter.engine.cycle;

import dev.arbiter.synth.SynthSpec;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ArbitrarySupplier;
import net.jqwik.api.Combinators;

/**
 * The clusters the engine's differential properties run on ({@code @ForAll(supplier = SmallClusters.class)}): 2–20
 * nodes, up to 150 pods, 1–5 queues, filled 0–95%, with the varied placement constraints of {@link SynthSpec#small};
 * the spec's seed also seeds each property's sequence of changes.
 */
public final class SmallClusters implements ArbitrarySupplier<SynthSpec> {
    @Override
    public Arbitrary<SynthSpec> get() {
        return Combinators.combine(Arbitraries.longs().between(1, 1_000_000_000L), Arbitraries.integers().between(2, 20),
                        Arbitraries.integers().between(0, 150), Arbitraries.integers().between(1, 5),
                        Arbitraries.integers().between(0, 95))
                .as((seed, nodes, pods, queues, fill) -> SynthSpec.small(nodes, pods, queues, seed, fill / 100.0));
    }
}
