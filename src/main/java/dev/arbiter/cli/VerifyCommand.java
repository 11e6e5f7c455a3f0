package dev.arbiter.cli;

import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.specs.SpecListener;
import dev.arbiter.specs.SpecReport;
import dev.arbiter.specs.SpecRules;
import io.cucumber.core.gherkin.FeatureParserException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code arbiter verify}: runs the Gherkin acceptance specs, with the step definitions shipped in this jar, against a
 * candidate rules folder, so a platform engineer can check an edited policy before deploying it.
 *
 * <p>Exit codes: 0 every scenario passed; 1 a scenario failed (or no scenario ran); 2 a feature path that does not
 * exist or a feature file Gherkin cannot read; 3 rules that do not compile ({@code file:line: message} lines) or ask for
 * something unknown. Undefined steps fail their scenario, named with the closest sentences of the vocabulary. The
 * report ({@link SpecReport}: steps with their feature file and line, messages without stack traces) goes to stdout:
 * by default the steps of the scenarios that failed and the counts; {@code --report pretty} every step; {@code -o
 * json|yaml} the counts and the failed scenarios as one document ({@link SpecReport.Json}).
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Run the Gherkin acceptance specs against a rules folder before deploying it.",
                "Exit 0 when every scenario passes, 1 when one fails, 3 when the rules do not compile or fail validate's checks."})
final class VerifyCommand implements Callable<Integer> {
    static final String GLUE = "dev.arbiter.specs";
    static final String DEFAULT_TAGS = "not @engine-bug";

    @Spec
    CommandSpec spec;

    @Option(names = "--rules", paramLabel = "DIR", description = "Folder of .drl policy files to check (default: ${DEFAULT-VALUE}).")
    Path rules = RulesLocation.defaultFolder();

    @Option(names = "--tags", paramLabel = "EXPRESSION",
            description = "Run the scenarios whose tags match (default: " + DEFAULT_TAGS + ", and for a pack also not"
                    + " @differs-in-<its name>; \"\" runs all).")
    String tags;

    @Option(names = "--report", paramLabel = "STYLE", defaultValue = "summary",
            description = "summary (the steps of the scenarios that failed, then the counts) or pretty (every step, then"
                    + " the counts) (default: ${DEFAULT-VALUE}).")
    String report;

    @Option(names = "--html", paramLabel = "FILE", description = "Also write Cucumber's HTML report to FILE.")
    Path html;

    @picocli.CommandLine.Mixin
    OutputOption output;

    @Parameters(arity = "0..*", paramLabel = "FEATURES",
            description = "Feature files or folders (default: features/ under $ARBITER_HOME, else under the working directory).")
    List<Path> features;

    @Override
    public Integer call() {
        if (!report.equals("pretty") && !report.equals("summary")) return Main.usage(spec, "--report must be pretty or summary, got " + report);
        if (output.problem() != null) return Main.usage(spec, output.problem());
        List<Path> paths = features == null || features.isEmpty() ? List.of(defaultFeatures()) : features;
        for (Path p : paths) {
            if (!Files.exists(p)) return Main.usage(spec, p + ": no such file or directory");
        }
        if (RulesLocation.problem("--rules", rules) != null) return Main.usage(spec, RulesLocation.problem("--rules", rules));
        RuleBook book = SpecRules.load(rules);
        // Rules that compile but loop, throw or leave decisions unmade fail here, as `validate` reports them (exit 3),
        // instead of failing every scenario.
        Integer broken = Main.brokenRules(spec, book);
        if (broken != null) return broken;

        if (tags == null) tags = defaultTags(book);
        long before = SpecListener.scenariosStarted();
        byte status;
        try {
            if (output.table()) {
                status = runCucumber(cucumberArguments(paths), spec.commandLine().getOut());
            } else {
                java.io.StringWriter json = new java.io.StringWriter();
                status = runCucumber(cucumberArguments(paths), json);
                spec.commandLine().getOut().print(output.document(json::toString));
                spec.commandLine().getOut().flush();
            }
        } catch (FeatureParserException e) {
            return Main.usage(spec, String.valueOf(e.getMessage()).replaceAll("\\s+", " "));
        }
        if (SpecListener.scenariosStarted() == before) {
            spec.commandLine().getErr().println("error: no scenario ran (features " + paths + ", tags \"" + tags + "\")");
            return 1;
        }
        return status == 0 ? 0 : 1;
    }

    /** {@code $ARBITER_HOME/features}, else {@code ./features}; {@code -Darbiter.features} overrides both. */
    static Path defaultFeatures() {
        String prop = System.getProperty("arbiter.features");
        if (prop != null && !prop.isBlank()) return Path.of(prop);
        String home = System.getenv("ARBITER_HOME");
        if (home != null && !home.isBlank()) return Path.of(home, "features");
        return Path.of("features");
    }

    /** {@value #DEFAULT_TAGS}; for a pack, also leaving out the scenarios tagged as where it must differ. */
    static String defaultTags(RuleBook book) {
        return book.packName() == null ? DEFAULT_TAGS : DEFAULT_TAGS + " and not @differs-in-" + book.packName();
    }

    private String[] cucumberArguments(List<Path> paths) {
        List<String> argv = new ArrayList<>(List.of("--glue", GLUE, "--plugin", SpecListener.class.getName(), "--plugin",
                (!output.table() ? SpecReport.Json.class : report.equals("pretty") ? SpecReport.class
                        : SpecReport.Summary.class).getName(), "--no-summary"));
        if (html != null) argv.addAll(List.of("--plugin", "html:" + html));
        if (tags != null && !tags.isBlank()) argv.addAll(List.of("--tags", tags));
        if (System.console() == null || System.getenv("NO_COLOR") != null) argv.add("--monochrome");
        paths.forEach(p -> argv.add(p.toString()));
        return argv.toArray(String[]::new);
    }

    /**
     * Runs Cucumber with the steps pointed at {@link #rules} and its report written to {@code out}; both the
     * {@value SpecRules#PROPERTY} property and {@code System.out} are restored afterwards.
     */
    private byte runCucumber(String[] argv, Writer out) {
        PrintStream originalOut = System.out;
        String originalRules = System.getProperty(SpecRules.PROPERTY);
        try (PrintStream report = new PrintStream(new WriterOutputStream(out), true, StandardCharsets.UTF_8)) {
            System.setOut(report);
            System.setProperty(SpecRules.PROPERTY, rules.toAbsolutePath().toString());
            return io.cucumber.core.cli.Main.run(argv, Thread.currentThread().getContextClassLoader());
        } finally {
            System.setOut(originalOut);
            if (originalRules == null) System.clearProperty(SpecRules.PROPERTY);
            else System.setProperty(SpecRules.PROPERTY, originalRules);
        }
    }

    /** UTF-8 bytes (Cucumber's plugins write to {@code System.out}) decoded into a writer; closing only flushes. */
    private static final class WriterOutputStream extends OutputStream {
        private final Writer writer;
        private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
        private final ByteBuffer bytes = ByteBuffer.allocate(8192);
        private final CharBuffer chars = CharBuffer.allocate(8192);

        WriterOutputStream(Writer writer) {
            this.writer = writer;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = Math.min(len, bytes.remaining());
                bytes.put(b, off, n);
                off += n;
                len -= n;
                drain();
            }
        }

        /** Decodes what is buffered; an incomplete multi-byte sequence waits for its next bytes. */
        private void drain() throws IOException {
            bytes.flip();
            while (true) {
                boolean overflow = decoder.decode(bytes, chars, false).isOverflow();
                chars.flip();
                writer.append(chars);
                chars.clear();
                if (!overflow) break;
            }
            bytes.compact();
        }

        @Override
        public synchronized void flush() throws IOException {
            writer.flush();
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
