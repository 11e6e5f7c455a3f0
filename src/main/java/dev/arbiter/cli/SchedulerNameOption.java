package dev.arbiter.cli;

import dev.arbiter.engine.cycle.SchedulerConfig;
import java.util.LinkedHashSet;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --scheduler-name NAME...}: the {@code spec.schedulerName}s to answer, with one default for every command, so
 * that a simulation decides the pods the live scheduler would (a picocli mixin, in {@code run} and, through
 * {@link SimulationOptions}, in {@code simulate}, {@code explain} and {@code diff}).
 */
final class SchedulerNameOption {
    @Option(names = "--scheduler-name", paramLabel = "NAME",
            description = "spec.schedulerName to answer; repeat for several (default: arbiter and volcano, in every command)."
                    + " Beside a running Volcano scheduler, pass arbiter alone.")
    List<String> given;

    /** The names given, in order, or {@link SchedulerConfig#DEFAULT_NAMES}. */
    LinkedHashSet<String> names() {
        return new LinkedHashSet<>(given == null ? SchedulerConfig.DEFAULT_NAMES : given);
    }
}
