package dev.arbiter.cli;

import dev.arbiter.engine.rules.PolicyException;
import dev.arbiter.engine.rules.RuleCompileException;
import dev.arbiter.manifest.ManifestException;
import dev.arbiter.runtime.KubeClients;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.TerminalText;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code arbiter} command. Exit codes: 0 success; 1 a failed check or an internal error; 2 invalid input
 * (manifests or arguments), with one line on stderr naming the file, object and field; 3 rules that do not compile
 * or ask for something unknown, one {@code file:line: message} line per problem; 4 {@code simulate} stopped at
 * {@code --max-cycles} before the cluster settled (its output is printed all the same). Output that cannot be written
 * (a full disk, a pipe closed early) is exit 1 with one line, whatever the command found. A cluster that cannot be used
 * (unreachable, TLS, DNS, credentials) is exit 1 with one line naming the server and the cause; a kubeconfig that
 * cannot be read is exit 2. Messages print names {@linkplain TerminalText#safe safe} for a terminal.
 */
@Command(name = "arbiter", mixinStandardHelpOptions = true, version = "arbiter 0.1.0",
        description = "A batch scheduler for Kubernetes AI clusters whose policy lives in Drools rule files.",
        subcommands = {SimulateCommand.class, VerifyCommand.class, RunCommand.class, GenerateCommand.class, BenchCommand.class,
                WhatIfCommand.class,
                ValidateCommand.class, ExplainCommand.class, DiffCommand.class, SnapshotCommand.class, TrainCommand.class,
                ShadowReportCommand.class,
                CompletionCommand.class,
                CommandLine.HelpCommand.class})
public final class Main {
    public static final int INVALID_INPUT = 2;
    public static final int RULES_BROKEN = 3;
    public static final int CYCLE_LIMIT = 4;

    private static volatile boolean standalone;

    public static void main(String[] args) {
        standalone = true;
        LogLevel.configure(args);
        // A rule that runs past its deadline and cannot be stopped (Java 20+ has no Thread.stop) keeps a core for good:
        // a command says which rule in one line and ends with exit 3, as for any broken rule. The live scheduler, once
        // started, says it its own way and fails its health check instead (LiveScheduler).
        dev.arbiter.engine.rules.StuckRules.whenStuck(message -> {
            System.out.flush();
            System.err.println("error: " + TerminalText.safe(message));
            System.err.flush();
            Runtime.getRuntime().halt(RULES_BROKEN);
        });
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    private static final ThreadLocal<Boolean> EMBEDDED = ThreadLocal.withInitial(() -> false);

    /** True in the {@code arbiter} process itself (not when embedded): it may handle signals and exit. */
    static boolean isStandalone() {
        return standalone && !EMBEDDED.get();
    }

    /**
     * Runs a command inside a larger program (the live bench runs {@code arbiter run} this way): like {@link #run},
     * but the command never takes over the process's signals; stop it by interrupting the calling thread.
     */
    public static int runEmbedded(String[] args, PrintWriter out, PrintWriter err) {
        EMBEDDED.set(true);
        try {
            return run(args, out, err);
        } finally {
            EMBEDDED.remove();
        }
    }

    /** Runs the command line with the given streams and returns the exit code (used by tests and the launcher). */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> handle(ex, err));
        // Bad arguments: one line naming the option and the value, and where the usage is (not the whole usage).
        cl.setParameterExceptionHandler((ex, rest) -> {
            String command = ex.getCommandLine().getCommandSpec().qualifiedName();
            err.println("error: " + TerminalText.safe(ex.getMessage().replaceAll("\\s+", " ").trim())
                    + " (see '" + command + " --help')");
            err.flush();
            return INVALID_INPUT;
        });
        int exit = cl.execute(args);
        // Output that could not be written (a full disk, a closed pipe) is a failure, not a silent success.
        if (out.checkError()) {
            err.println("error: the output could not be written to standard output (a full disk, or a pipe closed early)");
            err.flush();
            return exit == 0 ? 1 : exit;
        }
        return exit;
    }

    /** A command's invalid arguments: one {@code error:} line on stderr, exit {@link #INVALID_INPUT}. */
    static int usage(picocli.CommandLine.Model.CommandSpec spec, String message) {
        spec.commandLine().getErr().println("error: " + TerminalText.safe(message));
        return INVALID_INPUT;
    }

    /**
     * The policy check a command runs before it schedules: rules that compile but loop, throw or leave decisions
     * unmade ({@link PolicyCheck}). Each finding is one {@code error:} line on stderr, and the exit code is
     * {@link #RULES_BROKEN}; null when the rules pass.
     */
    static Integer brokenRules(picocli.CommandLine.Model.CommandSpec spec, dev.arbiter.engine.rules.RuleBook book) {
        List<String> findings = dev.arbiter.engine.cycle.PolicyCheck.check(book, List.of());
        return findings.isEmpty() ? null : brokenRules(spec, findings);
    }

    /** Prints the rules check's {@code findings}, one {@code error:} line each; returns {@link #RULES_BROKEN}. */
    static int brokenRules(picocli.CommandLine.Model.CommandSpec spec, List<String> findings) {
        PrintWriter err = spec.commandLine().getErr();
        for (String f : findings) err.println("error: " + TerminalText.safe(f));
        err.flush();
        return RULES_BROKEN;
    }

    /** One {@code warning:} line on stderr when a simulation stopped at the cycle limit; true if it did. */
    static boolean warnIfUnsettled(picocli.CommandLine.Model.CommandSpec spec, SimulationResult r, int maxCycles) {
        if (r.stable()) return false;
        spec.commandLine().getErr().println("warning: stopped at --max-cycles " + maxCycles + " (cycle "
                + (r.lastCycle() == null ? 0 : r.lastCycle().cycle()) + ") before the cluster settled; raise --max-cycles to see the rest");
        spec.commandLine().getErr().flush();
        return true;
    }

    private static int handle(Exception ex, PrintWriter err) {
        if (ex instanceof ManifestException m) {
            err.println("error: " + TerminalText.safe(m.getMessage()));
            return INVALID_INPUT;
        }
        if (ex instanceof RuleCompileException r) {
            for (String p : r.problems()) err.println("error: " + TerminalText.safe(p));
            return RULES_BROKEN;
        }
        if (ex instanceof KubeClients.BadKubeconfig k) {
            err.println("error: " + k.getMessage());
            return INVALID_INPUT;
        }
        if (ex instanceof KubeClients.ClusterUnavailable c) {
            err.println("error: " + c.getMessage());
            return 1;
        }
        if (ex instanceof PolicyException p) {
            err.println("error: " + TerminalText.safe(p.getMessage()));
            return RULES_BROKEN;
        }
        err.println("internal error: " + ex.getClass().getSimpleName() + ": "
                + TerminalText.safe(String.valueOf(ex.getMessage()).replaceAll("\\s+", " ")));
        return 1;
    }
}
