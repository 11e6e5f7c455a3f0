package dev.arbiter.cli;

import dev.arbiter.engine.PolicyException;
import dev.arbiter.engine.RuleCompileException;
import dev.arbiter.manifest.ManifestException;
import dev.arbiter.runtime.KubeClients;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code arbiter} command. Exit codes: 0 success; 1 a failed check or an internal error; 2 invalid input
 * (manifests or arguments), with one line on stderr naming the file, object and field; 3 rules that do not compile
 * or ask for something unknown, one {@code file:line: message} line per problem. A cluster that cannot be used
 * (unreachable, TLS, DNS, credentials) is exit 1 with one line naming the server and the cause; a kubeconfig that
 * cannot be read is exit 2.
 */
@Command(name = "arbiter", mixinStandardHelpOptions = true, version = "arbiter 0.1.0",
        description = "A batch scheduler for Kubernetes AI clusters whose policy lives in Drools rule files.",
        subcommands = {SimulateCommand.class, VerifyCommand.class, RunCommand.class, GenerateCommand.class, BenchCommand.class,
                ValidateCommand.class, ExplainCommand.class, DiffCommand.class, SnapshotCommand.class, CommandLine.HelpCommand.class})
public final class Main {
    public static final int INVALID_INPUT = 2;
    public static final int RULES_BROKEN = 3;

    private static volatile boolean standalone;

    public static void main(String[] args) {
        standalone = true;
        LogLevel.configure(args);
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
        return cl.execute(args);
    }

    /** A command's invalid arguments: one {@code error:} line on stderr, exit {@link #INVALID_INPUT}. */
    static int usage(picocli.CommandLine.Model.CommandSpec spec, String message) {
        spec.commandLine().getErr().println("error: " + message);
        return INVALID_INPUT;
    }

    private static int handle(Exception ex, PrintWriter err) {
        if (ex instanceof ManifestException m) {
            err.println("error: " + m.getMessage());
            return INVALID_INPUT;
        }
        if (ex instanceof RuleCompileException r) {
            for (String p : r.problems()) err.println("error: " + p);
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
            err.println("error: " + p.getMessage());
            return RULES_BROKEN;
        }
        err.println("internal error: " + ex.getClass().getSimpleName() + ": " + String.valueOf(ex.getMessage()).replaceAll("\\s+", " "));
        return 1;
    }
}
