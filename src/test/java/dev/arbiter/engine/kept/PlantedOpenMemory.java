package dev.arbiter.engine.kept;

/** Planted for {@code ArchitectureTest}: kept memory open to any file through a public field. Never used. */
public final class PlantedOpenMemory {
    public Object remembered;
}
