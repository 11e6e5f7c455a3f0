package dev.arbiter.specs;

import dev.arbiter.sim.TerminalText;
import io.cucumber.plugin.ConcurrentEventListener;
import io.cucumber.plugin.event.DataTableArgument;
import io.cucumber.plugin.event.DocStringArgument;
import io.cucumber.plugin.event.EventPublisher;
import io.cucumber.plugin.event.PickleStepTestStep;
import io.cucumber.plugin.event.Result;
import io.cucumber.plugin.event.Status;
import io.cucumber.plugin.event.StepArgument;
import io.cucumber.plugin.event.TestCase;
import io.cucumber.plugin.event.TestCaseFinished;
import io.cucumber.plugin.event.TestCaseStarted;
import io.cucumber.plugin.event.TestRunFinished;
import io.cucumber.plugin.event.TestStep;
import io.cucumber.plugin.event.TestStepFinished;
import io.cucumber.plugin.event.WriteEvent;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * {@code arbiter verify}'s report, in the product owner's words: each scenario's steps with the feature file and line
 * they come from (never the Java methods behind them); a failed step's message (never a stack trace); for a step no
 * definition reads, the closest sentences of the vocabulary in {@code docs/writing-specs.md} (never Java snippets);
 * then the failed and undefined scenarios and the counts. {@link Summary} ({@code verify}'s default) prints the steps of
 * the scenarios that failed or are undefined only, then the same last part.
 *
 * <p>A Cucumber plugin ({@code --plugin dev.arbiter.specs.SpecReport}); it writes to {@code System.out} as it is when
 * the plugin is made, which {@code arbiter verify} points at its own output. The summary line keeps Cucumber's form
 * ({@code 9 scenarios (9 passed)}), and listed scenarios read {@code 1) name # path:line}.
 */
public class SpecReport implements ConcurrentEventListener {
    private static final int SUGGESTIONS = 3;
    private static final Status[] ORDER = {Status.PASSED, Status.FAILED, Status.SKIPPED, Status.PENDING, Status.UNDEFINED,
            Status.AMBIGUOUS};

    private final PrintStream out = System.out;
    private final boolean steps;
    private final boolean json;
    /** The failed and undefined scenarios as data, for {@link Json}. */
    private final List<Map<String, Object>> problems = new ArrayList<>();
    private final StepVocabulary vocabulary = StepVocabulary.shipped();
    private final Map<Status, Integer> scenarioCounts = new EnumMap<>(Status.class);
    private final Map<Status, Integer> stepCounts = new EnumMap<>(Status.class);
    private final List<String> failed = new ArrayList<>();
    private final List<String> undefined = new ArrayList<>();
    private final StringBuilder scenario = new StringBuilder();
    private int width;
    private String firstProblem;

    /** Every step, then the summary. */
    public SpecReport() {
        this(true);
    }

    SpecReport(boolean steps) {
        this(steps, false);
    }

    private SpecReport(boolean steps, boolean json) {
        this.steps = steps;
        this.json = json;
    }

    /**
     * The same as one JSON document ({@code arbiter verify -o json}): {@code scenarios} and {@code steps} (counts by
     * status, and the total), and {@code problems}, each failed or undefined scenario with its {@code status},
     * {@code scenario} name, {@code location} (path:line) and first {@code problem}.
     */
    public static final class Json extends SpecReport {
        public Json() {
            super(false, true);
        }
    }

    /**
     * The detail of the failed and undefined scenarios only, then the counts ({@code arbiter verify}'s default,
     * {@code --report summary}).
     */
    public static final class Summary extends SpecReport {
        public Summary() {
            super(false);
        }
    }

    @Override
    public void setEventPublisher(EventPublisher publisher) {
        publisher.registerHandlerFor(TestCaseStarted.class, this::scenarioStarted);
        publisher.registerHandlerFor(TestStepFinished.class, this::stepFinished);
        publisher.registerHandlerFor(WriteEvent.class, this::written);
        publisher.registerHandlerFor(TestCaseFinished.class, this::scenarioFinished);
        publisher.registerHandlerFor(TestRunFinished.class, this::runFinished);
    }

    private void scenarioStarted(TestCaseStarted event) {
        TestCase tc = event.getTestCase();
        firstProblem = null;
        width = tc.getKeyword().length() + 2 + tc.getName().length();
        for (TestStep s : tc.getTestSteps()) {
            if (s instanceof PickleStepTestStep p) width = Math.max(width, 4 + p.getStep().getKeyword().length() + p.getStep().getText().length());
        }
        scenario.setLength(0);
        line("");
        line(padded(tc.getKeyword() + ": " + safe(tc.getName())) + "# " + where(tc.getUri(), tc.getLocation().getLine()));
    }

    private void stepFinished(TestStepFinished event) {
        Result result = event.getResult();
        if (!(event.getTestStep() instanceof PickleStepTestStep step)) {
            // A hook: silent unless it failed (e.g. a scenario without a Then step).
            if (result.getStatus() == Status.FAILED) problem(result);
            return;
        }
        stepCounts.merge(result.getStatus(), 1, Integer::sum);
        String text = step.getStep().getText();
        line(padded("  " + symbol(result.getStatus()) + " " + step.getStep().getKeyword() + safe(text))
                + "# " + where(step.getUri(), step.getStep().getLine()));
        argument(step.getStep().getArgument());
        if (result.getStatus() == Status.FAILED) problem(result);
        if (result.getStatus() == Status.UNDEFINED) {
            String message = "no step reads \"" + text + "\"" + suggestions(text);
            if (firstProblem == null) firstProblem = message;
            line(indent(message, "      "));
        }
    }

    private void problem(Result result) {
        String message = describe(result.getError());
        if (firstProblem == null) firstProblem = message;
        line(indent(message, "      "));
    }

    /** The closest documented sentences, as lines; "" when the vocabulary is not available. */
    private String suggestions(String text) {
        List<String> close = vocabulary.closest(text, SUGGESTIONS);
        if (close.isEmpty()) return ".";
        StringBuilder sb = new StringBuilder(". The closest steps in docs/writing-specs.md:");
        for (String s : close) sb.append("\n  ").append(s);
        return sb.toString();
    }

    private void argument(StepArgument argument) {
        if (argument instanceof DataTableArgument table) {
            List<List<String>> cells = table.cells();
            int cols = cells.isEmpty() ? 0 : cells.get(0).size();
            int[] w = new int[cols];
            for (List<String> row : cells) for (int i = 0; i < cols && i < row.size(); i++) w[i] = Math.max(w[i], safe(row.get(i)).length());
            for (List<String> row : cells) {
                StringBuilder sb = new StringBuilder("      |");
                for (int i = 0; i < cols && i < row.size(); i++) {
                    String c = safe(row.get(i));
                    sb.append(' ').append(c).append(" ".repeat(w[i] - c.length())).append(" |");
                }
                line(sb.toString());
            }
        } else if (argument instanceof DocStringArgument doc) {
            long lines = doc.getContent().lines().count();
            line("      \"\"\"" + (doc.getMediaType() == null ? "" : doc.getMediaType()) + " (" + lines
                    + (lines == 1 ? " line)" : " lines)"));
        }
    }

    private void written(WriteEvent event) {
        line(indent(event.getText(), "      "));
    }

    /** A line of the scenario's detail: printed at once when every step is, else kept until the scenario ends. */
    private void line(String text) {
        if (steps) out.println(text);
        else scenario.append(text).append('\n');
    }

    private void scenarioFinished(TestCaseFinished event) {
        TestCase tc = event.getTestCase();
        Status status = event.getResult().getStatus();
        scenarioCounts.merge(status, 1, Integer::sum);
        String line = safe(tc.getName()) + " # " + where(tc.getUri(), tc.getLocation().getLine())
                + (firstProblem == null ? "" : "\n" + indent(firstProblem, "     "));
        if (status == Status.FAILED) failed.add(line);
        else if (status == Status.UNDEFINED) undefined.add(line);
        if (status == Status.FAILED || status == Status.UNDEFINED) {
            Map<String, Object> p = new java.util.LinkedHashMap<>();
            p.put("status", status.name().toLowerCase());
            p.put("scenario", tc.getName());
            p.put("location", where(tc.getUri(), tc.getLocation().getLine()));
            p.put("problem", firstProblem);
            problems.add(p);
        }
        if (!steps && !json && (status == Status.FAILED || status == Status.UNDEFINED)) out.print(scenario);
        scenario.setLength(0);
    }

    private void runFinished(TestRunFinished event) {
        if (json) {
            Map<String, Object> doc = new java.util.LinkedHashMap<>();
            doc.put("scenarios", counts(scenarioCounts));
            doc.put("steps", counts(stepCounts));
            doc.put("problems", problems);
            if (event.getResult().getError() != null) doc.put("error", describe(event.getResult().getError()));
            out.print(new tools.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc) + "\n");
            out.flush();
            return;
        }
        out.println();
        list("Failed scenarios:", failed);
        list("Undefined scenarios:", undefined);
        out.println(count(scenarioCounts, "scenario"));
        out.println(count(stepCounts, "step"));
        if (event.getResult().getError() != null) out.println(indent(describe(event.getResult().getError()), ""));
        out.flush();
    }

    private void list(String title, List<String> lines) {
        if (lines.isEmpty()) return;
        out.println(title);
        for (int i = 0; i < lines.size(); i++) out.println("  " + (i + 1) + ") " + lines.get(i));
        out.println();
    }

    /** {@code {"total": 9, "passed": 8, "failed": 1}}. */
    private static Map<String, Object> counts(Map<Status, Integer> counts) {
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("total", counts.values().stream().mapToInt(Integer::intValue).sum());
        for (Status s : ORDER) if (counts.containsKey(s)) out.put(s.name().toLowerCase(), counts.get(s));
        return out;
    }

    /** {@code 9 scenarios (8 passed, 1 failed)}, as Cucumber prints it. */
    static String count(Map<Status, Integer> counts, String noun) {
        int total = counts.values().stream().mapToInt(Integer::intValue).sum();
        List<String> parts = new ArrayList<>();
        for (Status s : ORDER) if (counts.containsKey(s)) parts.add(counts.get(s) + " " + s.name().toLowerCase());
        return total + " " + noun + "s" + (parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")");
    }

    /**
     * A failure for people: what the steps say (an outcome that did not hold, a sentence or table they cannot read,
     * invalid YAML in a doc string) as it is, since they word it for product owners; anything else with its type,
     * since it is a bug in a step or the engine. Never a stack trace.
     */
    static String describe(Throwable error) {
        if (error == null) return "failed";
        String message = error.getMessage() == null ? "" : error.getMessage().strip();
        boolean forPeople = error instanceof AssertionError || error instanceof dev.arbiter.manifest.ManifestException
                || (error.getStackTrace().length > 0 && error.getStackTrace()[0].getClassName().startsWith("dev.arbiter.specs."));
        if (forPeople && !message.isEmpty()) return message;
        return error.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
    }

    private static String symbol(Status s) {
        return switch (s) {
            case PASSED -> "\u2714";
            case FAILED -> "\u2718";
            case SKIPPED -> "\u21b7";
            case UNDEFINED -> "?";
            case PENDING -> "\u25a0";
            default -> "!";
        };
    }

    private String padded(String text) {
        return text + " ".repeat(Math.max(1, width - text.length() + 1));
    }

    /** {@code features/gang.feature:12}: the path relative to the working directory when it is below it. */
    static String where(URI uri, int line) {
        String path;
        if ("file".equals(uri.getScheme())) {
            Path p = Path.of(uri).normalize(), cwd = Path.of("").toAbsolutePath();
            path = p.startsWith(cwd) ? cwd.relativize(p).toString() : p.toString();
        } else {
            path = uri.getSchemeSpecificPart();
        }
        return path + ":" + line;
    }

    private static String indent(String text, String prefix) {
        StringBuilder sb = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (sb.length() > 0) sb.append('\n');
            sb.append(line.isBlank() ? "" : prefix + safe(line));
        }
        return sb.toString();
    }

    private static String safe(String s) {
        return TerminalText.safe(s);
    }
}
