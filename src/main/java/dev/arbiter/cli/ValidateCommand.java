package dev.arbiter.cli;

import dev.arbiter.authoring.MatchGrowth;
import dev.arbiter.engine.rules.RuleInventory;
import dev.arbiter.engine.cycle.PolicyCheck;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.TerminalText;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter validate}: compiles a policy folder (rules and settings), then runs it on a built-in reference cluster
 * and on any clusters given and checks what it decides ({@link PolicyCheck}). A problem prints one
 * {@code file:line: message} line each (on stderr, whatever the output format) and exits 3; a sound policy lists each
 * file with its rules, then warns (exit 0, or 1 with {@code --strict}) about rules whose matches grow with the square of
 * the cluster. {@code -o json|yaml} prints the same as one document: {@code files} (each with its {@code rules}),
 * {@code warnings} (each with its {@code rule}, {@code kind} quadratic or looping, and the {@code message} the table
 * prints) and {@code summary}.
 */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Compile the policy, run it on a reference cluster (and on the clusters given) and check what it decides;"
                + " list its rules and warn about rules whose matches grow quadratically.")
final class ValidateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RulesOption rules;

    /** The live scheduler's hot reload runs the check alone in a child process (RulesWatcher): no listing, no growth. */
    @Option(names = "--check-only", hidden = true)
    boolean checkOnly;

    @Option(names = "--strict", description = "Exit 1 when there are warnings.")
    boolean strict;

    @Mixin
    OutputOption output;

    @picocli.CommandLine.Parameters(arity = "0..*", paramLabel = "PATH",
            description = "Clusters (manifest files or folders) to run the policy on, besides the reference cluster.")
    List<Path> clusters = List.of();

    @Override
    public Integer call() {
        if (rules.problem() != null) return Main.usage(spec, rules.problem());
        if (output.problem() != null) return Main.usage(spec, output.problem());
        RuleBook book = RuleBook.load(rules.folder);
        List<ClusterSnapshot> given = new java.util.ArrayList<>();
        for (Path c : clusters) {
            Manifests m = ManifestLoader.load(List.of(c));
            given.add(new ClusterSnapshot(m.nodes(), m.pods(), m.podGroups(), m.queues(), m.priorityClasses())
                    .withHyperNodes(m.hyperNodes()));
        }
        List<String> findings = PolicyCheck.check(book, given);
        if (!findings.isEmpty()) {
            PrintWriter err = spec.commandLine().getErr();
            for (String f : findings) err.println("error: " + TerminalText.safe(f));
            err.flush();
            return Main.RULES_BROKEN;
        }
        if (checkOnly) return 0;
        PrintWriter out = spec.commandLine().getOut();
        int count = 0;
        List<Map<String, Object>> files = new java.util.ArrayList<>();
        for (Map.Entry<String, List<String>> file : RuleInventory.rulesByFile(book).entrySet()) {
            Path source = book.files().stream().filter(f -> f.getFileName().toString().equals(file.getKey())).findFirst()
                    .orElse(rules.folder.resolve(file.getKey()));
            Path here = Path.of("").toAbsolutePath();
            if (source.isAbsolute() && source.startsWith(here)) source = here.relativize(source);
            files.add(ordered("file", source.toString(), "rules", file.getValue()));
            count += file.getValue().size();
        }
        MatchGrowth.Report growth = MatchGrowth.measure(book);
        List<Map<String, Object>> warned = new java.util.ArrayList<>();
        for (String rule : growth.looping()) {
            warned.add(ordered("rule", rule, "kind", "looping", "message", "rule \"" + rule + "\": kept firing (past the"
                    + " firing limit in one phase on a " + growth.smallPods() + "-pod sample) without settling: its"
                    + " consequence re-triggers it; add a guard (a condition its consequence makes false) or no-loop"));
        }
        for (MatchGrowth.Growth g : growth.quadratic()) {
            warned.add(ordered("rule", g.rule(), "kind", "quadratic", "message", String.format(Locale.ROOT,
                    "rule \"%s\": matches grow quadratically with the cluster: %d matches on %d pods x %d nodes, "
                            + "%d on %d x %d (%.1fx); join on an equality, or use exists/not/accumulate",
                    g.rule(), g.small(), growth.smallPods(), growth.smallNodes(), g.large(), growth.largePods(),
                    growth.largeNodes(), g.ratio())));
        }
        int warnings = warned.size();
        int rulesCounted = count;
        String document = output.document(() -> OutputOption.json(ordered("files", files, "warnings", warned, "summary",
                ordered("files", book.files().size(), "rules", rulesCounted, "generation", book.generation(),
                        "warnings", warnings))));
        if (document != null) {
            out.print(document);
            out.flush();
            return strict && warnings > 0 ? 1 : 0;
        }
        for (Map<String, Object> file : files) {
            @SuppressWarnings("unchecked")
            List<String> names = (List<String>) file.get("rules");
            out.println(file.get("file") + " (" + names.size() + (names.size() == 1 ? " rule)" : " rules)"));
            for (String rule : names) out.println("  " + rule);
        }
        for (Map<String, Object> w : warned) out.println("warning: " + w.get("message"));
        out.println("ok: " + book.files().size() + (book.files().size() == 1 ? " file, " : " files, ") + count
                + (count == 1 ? " rule" : " rules") + ", generation " + book.generation()
                + (warnings == 0 ? "" : ", " + warnings + " warning(s)"));
        out.flush();
        return strict && warnings > 0 ? 1 : 0;
    }

    /** A map keeping the order of its keys ({@code key, value, key, value, ...}), for a JSON document. */
    static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        return m;
    }
}
