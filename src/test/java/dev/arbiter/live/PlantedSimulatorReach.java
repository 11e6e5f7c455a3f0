package dev.arbiter.live;

/** Planted for {@code ArchitectureTest}: the live scheduler reaching into the simulator. Never used. */
public final class PlantedSimulatorReach {
    public dev.arbiter.sim.Simulator simulator;
}
