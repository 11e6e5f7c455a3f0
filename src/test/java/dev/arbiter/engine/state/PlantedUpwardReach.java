package dev.arbiter.engine.state;

/** Planted for {@code ArchitectureTest}: the bottom room reaching up into the cycle and into Drools. Never used. */
public final class PlantedUpwardReach {
    public dev.arbiter.engine.cycle.Scheduler up;
    public org.kie.api.KieBase drools;
}
