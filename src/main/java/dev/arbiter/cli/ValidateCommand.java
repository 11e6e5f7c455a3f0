package dev.arbiter.cli;

import dev.arbiter.authoring.MatchGrowth;
import dev.arbiter.authoring.RuleInventory;
import dev.arbiter.engine.RuleBook;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter validate}: compiles a rules folder. Broken rules print {@code file:line: message} per problem and
 * exit 3 (through {@link Main}); good rules list each file with its rules, then warn (exit 0, or 1 with
 * {@code --strict}) about rules whose matches grow with the square of the cluster.
 */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Compile the rule files, list their rules, and warn about rules whose matches grow quadratically.")
final class ValidateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--rules", paramLabel = "DIR", description = "Folder of .drl policy files (default: ${DEFAULT-VALUE}).")
    Path rules = RulesLocation.defaultFolder();

    @Option(names = "--strict", description = "Exit 1 when there are warnings.")
    boolean strict;

    @Override
    public Integer call() {
        if (RulesLocation.problem("--rules", rules) != null) return Main.usage(spec, RulesLocation.problem("--rules", rules));
        RuleBook book = RuleBook.load(rules);
        PrintWriter out = spec.commandLine().getOut();
        int count = 0;
        for (Map.Entry<String, List<String>> file : RuleInventory.rulesByFile(book).entrySet()) {
            out.println(rules.resolve(file.getKey()) + " (" + file.getValue().size() + (file.getValue().size() == 1 ? " rule)" : " rules)"));
            for (String rule : file.getValue()) out.println("  " + rule);
            count += file.getValue().size();
        }
        MatchGrowth.Report growth = MatchGrowth.measure(book);
        for (String rule : growth.looping()) {
            out.println("warning: rule \"" + rule + "\": kept firing (" + MatchGrowth.FIRING_LIMIT + " firings in one "
                    + "phase on a " + growth.smallPods() + "-pod sample) without settling: its consequence re-triggers it; "
                    + "add a guard (a condition its consequence makes false) or no-loop");
        }
        for (MatchGrowth.Growth g : growth.quadratic()) {
            out.println(String.format(Locale.ROOT,
                    "warning: rule \"%s\": matches grow quadratically with the cluster: %d matches on %d pods x %d nodes, "
                            + "%d on %d x %d (%.1fx); join on an equality, or use exists/not/accumulate",
                    g.rule(), g.small(), growth.smallPods(), growth.smallNodes(), g.large(), growth.largePods(),
                    growth.largeNodes(), g.ratio()));
        }
        int warnings = growth.quadratic().size() + growth.looping().size();
        out.println("ok: " + book.files().size() + (book.files().size() == 1 ? " file, " : " files, ") + count
                + (count == 1 ? " rule" : " rules") + ", generation " + book.generation()
                + (warnings == 0 ? "" : ", " + warnings + " warning(s)"));
        out.flush();
        return strict && warnings > 0 ? 1 : 0;
    }
}
