package dev.arbiter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code arbiter simulate}: exit codes and one-line errors for bad input, and the two output formats. */
class SimulateCommandTest {
    @TempDir
    Path dir;

    private static final String NODE = """
            apiVersion: v1
            kind: Node
            metadata: {name: n1}
            status: {allocatable: {cpu: "8", nvidia.com/gpu: "8"}}
            """;

    static Stream<Arguments> invalidInput() {
        return Stream.of(
                Arguments.of(Named.of("broken YAML", "apiVersion: v1\nkind: Node\nmetadata: {name: [unclosed\n"), "bad.yaml:"),
                Arguments.of(Named.of("an unparseable quantity", NODE.replace("\"8\", nvidia", "\"8x\", nvidia")),
                        "Node n1: status.allocatable.cpu: \"8x\" is not a Kubernetes quantity"),
                Arguments.of(Named.of("a negative weight", """
                        apiVersion: scheduling.volcano.sh/v1beta1
                        kind: Queue
                        metadata: {name: teama}
                        spec: {weight: -1}
                        """), "Queue teama: spec.weight: must be a positive integer, got -1"));
    }

    @ParameterizedTest(name = "{0} exits 2 with one line naming the problem")
    @MethodSource("invalidInput")
    void invalidInputExits2WithOneLine(String yaml, String expected) throws IOException {
        Path f = Files.writeString(dir.resolve("bad.yaml"), yaml);
        CliRunner r = CliRunner.run("simulate", f.toString());
        assertEquals(2, r.exit(), r.err());
        assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
        assertTrue(r.err().contains(expected), r.err());
        assertTrue(r.err().contains("bad.yaml"), "names the file: " + r.err());
        assertTrue(r.out().isEmpty());
    }

    @Test
    void aDrlSyntaxErrorExits3NamingFileAndLine() throws IOException {
        Path rules = Files.createDirectories(dir.resolve("rules"));
        Files.writeString(rules.resolve("broken.drl"), """
                package arbiter.policy;
                import dev.arbiter.facts.JobFact;

                rule "broken"
                when
                    JobFact( minMember > )
                then
                end
                """);
        Path f = Files.writeString(dir.resolve("ok.yaml"), NODE);
        CliRunner r = CliRunner.run("simulate", "--rules", rules.toString(), f.toString());
        assertEquals(3, r.exit(), r.err());
        assertTrue(r.err().contains("broken.drl:6:"), r.err());
        assertTrue(r.err().lines().allMatch(l -> l.startsWith("error: ")), r.err());
    }

    @Test
    void aMissingFileExits2() {
        CliRunner r = CliRunner.run("simulate", dir.resolve("nope.yaml").toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("no such file"), r.err());
    }

    @Test
    void aPathHoldingNoKubernetesObjectExits2WithOneLine() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("exported"));
        Files.writeString(folder.resolve("a.json"), "{\"kind\": \"x\"}");
        Files.write(folder.resolve("b.bin"), new byte[] {0, 1, 2});
        CliRunner r = CliRunner.run("simulate", folder.toString());
        assertEquals(2, r.exit(), r.err());
        assertEquals("error: " + folder + ": no Kubernetes object (no *.yaml or *.yml file in it has a document with"
                + " apiVersion and kind)", r.err().strip());
        assertTrue(r.out().isEmpty(), r.out());
        Path comments = Files.writeString(dir.resolve("empty.yaml"), "# nothing yet\n");
        CliRunner file = CliRunner.run("simulate", NODE_FILE(), comments.toString());
        assertEquals(2, file.exit(), file.err());
        assertEquals("error: " + comments + ": no Kubernetes object (no document with apiVersion and kind)", file.err().strip());
    }

    private String NODE_FILE() throws IOException {
        return Files.writeString(dir.resolve("node.yaml"), NODE).toString();
    }

    @Test
    void notices_of_likely_mistakes_print_as_notice_lines_and_json_notices() throws IOException {
        Path f = Files.writeString(dir.resolve("pg.yaml"), NODE + """
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-a}
                spec: {minMemeber: 2}
                """);
        String line = f + ":9: PodGroup team-a/train: spec.minMemeber: unknown field, ignored (did you mean minMember?)";
        CliRunner r = CliRunner.run("simulate", f.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("notice: " + line + "\n"), r.out());
        CliRunner json = CliRunner.run("simulate", "--output", "json", f.toString());
        assertTrue(json.out().contains("\"" + line + "\""), json.out());
    }

    @Test
    void anUnknownOutputFormatExits2() throws IOException {
        Path f = Files.writeString(dir.resolve("ok.yaml"), NODE);
        assertEquals(2, CliRunner.run("simulate", "--output", "xml", f.toString()).exit());
    }

    @Test
    void aPodGroupNamingAnUnknownQueueIsNotFatal() throws IOException {
        Path f = Files.writeString(dir.resolve("pg.yaml"), NODE + """
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: pg, namespace: ns}
                spec: {queue: missing, minMember: 1}
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: p
                  namespace: ns
                  annotations: {scheduling.k8s.io/group-name: pg}
                spec:
                  schedulerName: volcano
                  containers: [{name: c, resources: {requests: {nvidia.com/gpu: "1"}}}]
                """);
        CliRunner r = CliRunner.run("simulate", "--output", "json", f.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\"podGroup\":\"ns/pg\",\"queue\":\"missing\",\"phase\":\"Pending\""), r.out());
        assertTrue(r.out().contains("queue \\\"missing\\\" does not exist"), r.out());
    }

    @Test
    void theTableOutputShowsDecisionsAndTables() {
        CliRunner r = CliRunner.run("simulate", "../../deploy/examples/seed".replace("../../", ""));
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("Cycle 1: 4 bound, 0 evicted"), r.out());
        assertTrue(r.out().contains("PODGROUP"), r.out());
        assertTrue(r.out().contains("QUEUE"), r.out());
    }

    @Test
    void decisionsCarryShortRuleIdsWithEachSentenceOnceAndWideSpellsThemOut() {
        CliRunner r = CliRunner.run("simulate", "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        String sentence = "reclaim: a queue below its deserved share takes back from reclaimable queues above theirs";
        assertTrue(r.out().contains("(reclaim for a01/qwen2-72b-unified-pg)   [reclaim]"), r.out());
        assertTrue(r.out().contains("\nRules:\n  gang      gang: a job starts only when minMember of its tasks can run together\n"
                + "  reclaim   " + sentence + "\n"), r.out());
        assertEquals(1, r.out().split(java.util.regex.Pattern.quote(sentence), -1).length - 1, "the sentence once");
        assertTrue(r.out().lines().allMatch(l -> l.length() <= 120), "no decision line carries a whole sentence");

        CliRunner wide = CliRunner.run("simulate", "--wide", "deploy/examples/seed");
        assertEquals(0, wide.exit(), wide.err());
        assertTrue(wide.out().contains("(reclaim for a01/qwen2-72b-unified-pg)   [" + sentence + "]"), wide.out());
        assertTrue(!wide.out().contains("\nRules:\n"), "no legend with --wide");
    }

    @Test
    void theSeedsDefaultOutputFits120ColumnsAndWideHasEveryColumn() {
        CliRunner r = CliRunner.run("simulate", "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        String longest = r.out().lines().max(java.util.Comparator.comparingInt(String::length)).orElseThrow();
        assertTrue(longest.length() <= 120, longest.length() + " columns: " + longest);
        assertTrue(r.out().contains("tenanta   root     1        Open    0         0         1         mars-tech.com/gpu 16/16\n"),
                r.out());
        assertTrue(!r.out().contains("RUNNING   DESERVED"), "the whole resources are for -o wide");

        for (String[] wideArgs : new String[][] {{"-o", "wide"}, {"--output=wide"}, {"--wide"}}) {
            String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("simulate"),
                    java.util.stream.Stream.concat(java.util.Arrays.stream(wideArgs), java.util.stream.Stream.of("deploy/examples/seed")))
                    .toArray(String[]::new);
            CliRunner wide = CliRunner.run(args);
            assertEquals(0, wide.exit(), wide.err());
            assertTrue(wide.out().contains("PENDING   INQUEUE   RUNNING   DESERVED"), String.join(" ", wideArgs) + ": " + wide.out());
            assertTrue(wide.out().contains("cpu=32,mars-tech.com/gpu=16,memory=256Gi   cpu=32,mars-tech.com/gpu=16,memory=256Gi"),
                    wide.out());
        }
        CliRunner bad = CliRunner.run("simulate", "-o", "yamll", "deploy/examples/seed");
        assertEquals(Main.INVALID_INPUT, bad.exit());
        assertTrue(bad.err().contains("--output must be table, wide, json or yaml, got yamll"), bad.err());
    }

    @Test
    void aCyclesLineListsOnlyTheQueuesWhoseShareChanged() {
        CliRunner r = CliRunner.run("simulate", "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.equals("Cycle 1: 4 bound, 0 evicted  |  mars-tech.com/gpu allocated/deserved: tenantb 32/32")),
                r.out());
        assertTrue(r.out().contains("\nCycle 2: 0 bound, 0 evicted\n"), "nothing changed in cycle 2: " + r.out());
        assertTrue(r.out().contains("\nCycle 61: 0 bound, 2 evicted  |  mars-tech.com/gpu allocated/deserved: tenanta 16/16 tenantb 16/16\n"),
                r.out());
        assertTrue(!r.out().contains("default 0/0"), "the default queue never changes: " + r.out());
    }

    @Test
    void theStableLineNamesTheLastCycleAndHowManyRan() {
        CliRunner r = CliRunner.run("simulate", "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\nCycle 63: 0 bound, 0 evicted\nStable after cycle 63 (5 cycles run; idle cycles skipped).\n"),
                r.out());
    }

    @Test
    void sharesReadInTheResourcesOwnUnits() throws IOException {
        // Three equal queues that each want 16 GPUs share 32: 10.67 each, printed as 10.7, not 10666m.
        StringBuilder yaml = new StringBuilder();
        for (int n = 1; n <= 4; n++) {
            yaml.append(NODE.replace("n1", "n" + n)).append("---\n");
        }
        for (String q : new String[] {"qa", "qb", "qc"}) {
            yaml.append("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: ").append(q)
                    .append("}\nspec: {weight: 1}\n---\n");
            for (int i = 0; i < 2; i++) {
                yaml.append("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p-").append(q).append(i).append("\n  namespace: ns\n")
                        .append("  annotations: {scheduling.volcano.sh/queue-name: ").append(q).append("}\n")
                        .append("spec:\n  schedulerName: arbiter\n  containers: [{name: c, resources: {requests: {nvidia.com/gpu: \"8\"}, ")
                        .append("limits: {nvidia.com/gpu: \"8\"}}}]\n---\n");
            }
        }
        Path f = Files.writeString(dir.resolve("three.yaml"), yaml.toString());
        CliRunner r = CliRunner.run("simulate", f.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().matches("(?s).*qa \\d+/10\\.7 qb \\d+/10\\.7 qc \\d+/10\\.7.*"), r.out());
        assertTrue(!r.out().contains("10666m"), r.out());
        assertTrue(r.out().matches("(?s).*\\nqa .*nvidia.com/gpu \\d+/10\\.7\\n.*"), "the queue table too: " + r.out());
        CliRunner json = CliRunner.run("simulate", "--output", "json", f.toString());
        assertTrue(json.out().contains("\"nvidia.com/gpu\":\"10666m\""), "JSON keeps exact Kubernetes quantities: " + json.out());
    }

    @Test
    void namesWithTerminalEscapesArePrintedEscaped() throws IOException {
        // An annotation value is not a name the API server checks; it reaches the output as a queue name.
        Path f = Files.writeString(dir.resolve("esc.yaml"), NODE + """
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: p
                  namespace: ns
                  annotations: {scheduling.volcano.sh/queue-name: "evil\\e[31mred\\a"}
                spec:
                  schedulerName: arbiter
                  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
                """);
        CliRunner r = CliRunner.run("simulate", f.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(!r.out().contains("\u001b") && !r.out().contains("\u0007"), "no raw escape reaches the terminal");
        assertTrue(r.out().contains("evil\\x1b[31mred\\x07"), r.out());
        // explain prints the same names the same way
        CliRunner explain = CliRunner.run("explain", "ns/p", f.toString());
        String all = explain.out() + explain.err();
        assertTrue(explain.out().contains("evil\\x1b[31mred\\x07"), all);
        assertTrue(!all.contains("\u001b") && !all.contains("\u0007"), "no raw escape from explain: " + all);
    }

    @Test
    void theReportSaysWhereItWrote() {
        Path report = dir.resolve("seed.html");
        CliRunner r = CliRunner.run("simulate", "--report", report.toString(), "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertEquals("wrote report " + report.toAbsolutePath() + " (5 cycles, 3 queues, 2 PodGroups)", r.err().strip());
        assertTrue(Files.isRegularFile(report));
    }

    @Test
    void hittingTheCycleLimitWarnsAndExits4WithTheOutputPrinted() {
        CliRunner r = CliRunner.run("simulate", "--max-cycles", "2", "deploy/examples/seed");
        assertEquals(Main.CYCLE_LIMIT, r.exit(), r.err());
        assertEquals("warning: stopped at --max-cycles 2 (cycle 2) before the cluster settled; raise --max-cycles to see the rest",
                r.err().strip());
        assertTrue(r.out().contains("\nStopped at the cycle limit after cycle 2 (2 cycles run).\n"), r.out());
        CliRunner json = CliRunner.run("simulate", "--max-cycles", "2", "--output", "json", "deploy/examples/seed");
        assertEquals(Main.CYCLE_LIMIT, json.exit());
        assertTrue(json.out().contains("\"stable\":false"), json.out());
        assertTrue(CliRunner.run("simulate", "--output", "json", "deploy/examples/seed").out().contains("\"stable\":true"));
    }

    @Test
    void aRulesFolderThatDoesNotExistIsInvalidInput() {
        for (String command : new String[] {"simulate", "explain", "diff", "verify", "validate"}) {
            String[] args = switch (command) {
                case "explain" -> new String[] {"explain", "--rules", "/nonexistent", "a01/qwen2-72b-unified-pg", "deploy/examples/seed"};
                case "diff" -> new String[] {"diff", "--rules", "/nonexistent", "--candidate", "rules", "deploy/examples/seed"};
                case "verify" -> new String[] {"verify", "--rules", "/nonexistent", "features/gang.feature"};
                case "validate" -> new String[] {"validate", "--rules", "/nonexistent"};
                default -> new String[] {"simulate", "--rules", "/nonexistent", "deploy/examples/seed"};
            };
            CliRunner r = CliRunner.run(args);
            assertEquals(2, r.exit(), command + ": " + r.err());
            assertEquals("error: --rules: /nonexistent: no such directory", r.err().strip(), command);
        }
        String before = System.getProperty("arbiter.rules");
        System.setProperty("arbiter.rules", "/nonexistent-default");
        try {
            CliRunner missingDefault = CliRunner.run("simulate", "deploy/examples/seed");
            assertEquals(2, missingDefault.exit());
            assertEquals("error: --rules: /nonexistent-default: no such directory (the default; pass --rules DIR or set ARBITER_HOME)",
                    missingDefault.err().strip());
        } finally {
            if (before == null) System.clearProperty("arbiter.rules");
            else System.setProperty("arbiter.rules", before);
        }
        CliRunner file = CliRunner.run("diff", "--candidate", "README.md", "deploy/examples/seed");
        assertEquals(2, file.exit(), file.err());
        assertEquals("error: --candidate: README.md: not a directory", file.err().strip());
    }

    @Test
    void noticesAppearInTheJsonOutputToo() throws IOException {
        Path f = Files.writeString(dir.resolve("cm.yaml"), NODE + """
                ---
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: settings, namespace: team}
                """);
        CliRunner table = CliRunner.run("simulate", f.toString());
        assertTrue(table.out().contains("notice: " + f + ":6: skipped v1 ConfigMap team/settings: not a kind Arbiter schedules"), table.out());
        CliRunner json = CliRunner.run("simulate", "--output", "json", f.toString());
        assertEquals(0, json.exit(), json.err());
        assertTrue(json.out().contains("\"notices\":[\n  \"" + f + ":6: skipped v1 ConfigMap team/settings: not a kind Arbiter schedules\"]"),
                json.out());
    }

    @Test
    void everyCommandAnswersArbiterAndVolcanoByDefault() throws IOException {
        StringBuilder yaml = new StringBuilder(NODE);
        for (String scheduler : new String[] {"arbiter", "volcano", "default-scheduler"}) {
            yaml.append("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p-").append(scheduler).append(", namespace: ns}\n")
                    .append("spec:\n  schedulerName: ").append(scheduler).append("\n  containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]\n");
        }
        Path f = Files.writeString(dir.resolve("names.yaml"), yaml.toString());
        CliRunner r = CliRunner.run("simulate", f.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("bind   ns/p-arbiter -> n1") && r.out().contains("bind   ns/p-volcano -> n1"), r.out());
        assertTrue(r.out().matches("(?s).*ns/p-default-scheduler\\s+Pending\\s+<none>.*"), "another scheduler's pod: " + r.out());
        assertEquals(java.util.List.of("arbiter", "volcano"), dev.arbiter.engine.cycle.SchedulerConfig.DEFAULT_NAMES);
        for (String command : new String[] {"simulate", "explain", "diff", "run"}) {
            String help = CliRunner.run(command, "--help").out().replaceAll("\\s+", " ");
            assertTrue(help.contains("(default: arbiter and volcano"), command + " --help states the one default: " + help);
        }
    }
}
