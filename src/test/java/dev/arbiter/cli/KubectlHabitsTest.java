package dev.arbiter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kubectl habits carry over: -n and a bare name, -o, a controller's name in explain, completion, generate to stdout. */
class KubectlHabitsTest {
    private static final String WORKLOADS = "deploy/examples/workloads";

    @TempDir
    Path dir;

    @Test
    void explainTakesAVolcanoJobsNameAndSaysWhichPodGroupItIs() {
        CliRunner r = CliRunner.run("explain", "research/pretrain", WORKLOADS);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("research/pretrain (pods labelled volcano.sh/job-name=pretrain) is PodGroup research/pretrain-"), r.out());
        assertTrue(r.out().contains("\nPodGroup research/pretrain-"), r.out());
    }

    @Test
    void explainTakesANamespaceFlagAndTheOutputShorthand() {
        CliRunner r = CliRunner.run("explain", "-n", "serving", "chat-70b", "-o", "json", WORKLOADS);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("serving/chat-70b (pods labelled leaderworkerset.sigs.k8s.io/name=chat-70b) is PodGroup serving/chat-70b-0"), r.err());
        assertTrue(r.out().startsWith("{"), r.out());
        assertEquals(0, CliRunner.run("explain", "-n", "research", "pretrain", "-o", "table", WORKLOADS).exit());
        CliRunner clash = CliRunner.run("explain", "-n", "serving", "research/pretrain", WORKLOADS);
        assertEquals(2, clash.exit());
        assertTrue(clash.err().contains("research/pretrain names its namespace; -n serving says another"), clash.err());
        CliRunner none = CliRunner.run("explain", "nothing-here", WORKLOADS);
        assertEquals(2, none.exit());
        assertTrue(none.err().contains("no pod or PodGroup default/nothing-here"), none.err());
    }

    @Test
    void contextPicksTheKubeconfigsContext() throws Exception {
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                  - {name: one, cluster: {server: "https://127.0.0.1:6441"}}
                  - {name: two, cluster: {server: "https://127.0.0.1:6442"}}
                users: [{name: u, user: {token: t}}]
                contexts:
                  - {name: first, context: {cluster: one, user: u, namespace: team-a}}
                  - {name: second, context: {cluster: two, user: u, namespace: team-b}}
                current-context: first
                """);
        var current = dev.arbiter.runtime.KubeClients.config(kubeconfig, null, java.time.Duration.ofSeconds(1));
        assertEquals("https://127.0.0.1:6441/", current.getMasterUrl());
        var second = dev.arbiter.runtime.KubeClients.config(kubeconfig, "second", java.time.Duration.ofSeconds(1));
        assertEquals("https://127.0.0.1:6442/", second.getMasterUrl());
        assertEquals("team-b", second.getNamespace());
        for (String[] cmd : new String[][] {{"explain", "p"}, {"snapshot"}, {"run"}}) {
            String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(cmd),
                    java.util.stream.Stream.of("--kubeconfig", kubeconfig.toString(), "--context", "third")).toArray(String[]::new);
            CliRunner wrong = CliRunner.run(args);
            assertEquals(2, wrong.exit(), String.join(" ", args) + ": " + wrong.err());
            assertTrue(wrong.err().contains("--context third: no such context"), wrong.err());
        }
    }

    @Test
    void dashOYamlIsTheJsonDocumentInYaml() {
        CliRunner json = CliRunner.run("simulate", "-o", "json", "deploy/examples/seed");
        CliRunner yaml = CliRunner.run("simulate", "-o", "yaml", "deploy/examples/seed");
        assertEquals(0, yaml.exit(), yaml.err());
        Object fromJson = new tools.jackson.databind.ObjectMapper().readValue(json.out(), Object.class);
        Object fromYaml = new org.yaml.snakeyaml.Yaml().load(yaml.out());
        assertEquals(normalized(fromJson), normalized(fromYaml));
        assertTrue(!yaml.out().trim().startsWith("{"), "block style, not JSON: " + yaml.out().substring(0, 80));
        CliRunner explain = CliRunner.run("explain", "research/pretrain", "-o", "yaml", WORKLOADS);
        assertEquals(0, explain.exit(), explain.err());
        assertTrue(explain.out().contains("subject: PodGroup research/pretrain-"), explain.out());
    }

    /** Numbers as doubles: JSON and YAML readers pick different integer types. */
    private static Object normalized(Object o) {
        if (o instanceof java.util.Map<?, ?> m) {
            java.util.Map<String, Object> out = new java.util.TreeMap<>();
            m.forEach((k, v) -> out.put(String.valueOf(k), normalized(v)));
            return out;
        }
        if (o instanceof java.util.List<?> l) return l.stream().map(KubectlHabitsTest::normalized).toList();
        if (o instanceof Number n) return n.doubleValue();
        return o;
    }

    @Test
    void completionPrintsAScriptForBashAndZsh() {
        CliRunner bash = CliRunner.run("completion", "bash");
        assertEquals(0, bash.exit(), bash.err());
        assertTrue(bash.out().contains("complete -F") && bash.out().contains("explain"), bash.out());
        assertTrue(CliRunner.run("completion", "zsh").out().startsWith("autoload -U +X compinit"));
        assertEquals(2, CliRunner.run("completion", "fish").exit());
    }

    @Test
    void generateWritesToStdoutOrToTheFileAndDashOIsTheFormat() throws Exception {
        CliRunner out = CliRunner.run("generate", "--nodes", "2", "--pods", "4", "--queues", "1");
        assertEquals(0, out.exit(), out.err());
        assertTrue(out.out().contains("kind: Node"), out.out());
        Path f = dir.resolve("fleet.yaml");
        CliRunner file = CliRunner.run("generate", "--nodes", "2", "--pods", "4", "--queues", "1", "--file", f.toString());
        assertEquals(0, file.exit(), file.err());
        assertEquals(out.out(), Files.readString(f));
        CliRunner oldHabit = CliRunner.run("generate", "-o", f.toString());
        assertEquals(2, oldHabit.exit());
        assertTrue(oldHabit.err().contains("to write a file, use --file " + f), oldHabit.err());
    }

    @Test
    void validateAndVerifyPrintTheirResultAsJsonOrYaml() {
        CliRunner json = CliRunner.run("validate", "-o", "json");
        assertEquals(0, json.exit(), json.err());
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> doc = new tools.jackson.databind.ObjectMapper().readValue(json.out(), java.util.Map.class);
        assertEquals(java.util.List.of("files", "warnings", "summary"), java.util.List.copyOf(doc.keySet()));
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> summary = (java.util.Map<String, Object>) doc.get("summary");
        CliRunner table = CliRunner.run("validate");
        assertTrue(table.out().contains("ok: " + summary.get("files") + " files, " + summary.get("rules") + " rules"),
                "the table's counts: " + table.out());
        CliRunner yaml = CliRunner.run("validate", "--output", "yaml");
        assertEquals(normalized(doc), normalized(new org.yaml.snakeyaml.Yaml().load(yaml.out())));

        CliRunner verify = CliRunner.run("verify", "-o", "json", "features/usage.feature");
        assertEquals(0, verify.exit(), verify.err());
        assertTrue(verify.out().startsWith("{"), verify.out());
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> result = new tools.jackson.databind.ObjectMapper().readValue(verify.out(), java.util.Map.class);
        assertEquals(java.util.Map.of("total", 3, "passed", 3), result.get("scenarios"));
        assertEquals(java.util.List.of(), result.get("problems"));
        CliRunner verifyYaml = CliRunner.run("verify", "-o", "yaml", "features/usage.feature");
        assertEquals(0, verifyYaml.exit(), verifyYaml.err());
        assertEquals(normalized(result), normalized(new org.yaml.snakeyaml.Yaml().load(verifyYaml.out())));
    }

    @Test
    void verifyJsonNamesTheScenarioThatFailed() throws Exception {
        Path feature = Files.writeString(dir.resolve("f.feature"), """
                Feature: f
                  Scenario: a step nobody wrote
                    Given a sentence no step reads
                """);
        CliRunner r = CliRunner.run("verify", "-o", "json", feature.toString());
        assertEquals(1, r.exit(), r.err());
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> result = new tools.jackson.databind.ObjectMapper().readValue(r.out(), java.util.Map.class);
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> problem = ((java.util.List<java.util.Map<String, Object>>) result.get("problems")).get(0);
        assertEquals("undefined", problem.get("status"));
        assertEquals("a step nobody wrote", problem.get("scenario"));
        assertTrue(problem.get("location").toString().endsWith("f.feature:2"), problem.toString());
        assertTrue(problem.get("problem").toString().startsWith("no step reads \"a sentence no step reads\""), problem.toString());
    }

    @Test
    void anUnsupportedOutputIsOneLineNamingTheAcceptedValuesExit2() {
        String[][] commands = {{"simulate", "deploy/examples/seed"}, {"diff", "--candidate", "rules", "deploy/examples/seed"},
                {"explain", "research/pretrain", WORKLOADS}, {"validate"}, {"verify", "features/usage.feature"}};
        for (String[] cmd : commands) {
            String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(cmd), java.util.stream.Stream.of("-o", "xml"))
                    .toArray(String[]::new);
            CliRunner r = CliRunner.run(args);
            assertEquals(2, r.exit(), String.join(" ", args) + ": " + r.err());
            assertEquals("error: --output must be table, wide, json or yaml, got xml\n", r.err(), String.join(" ", args));
        }
        CliRunner snapshot = CliRunner.run("snapshot", "-o", "table");
        assertEquals(2, snapshot.exit(), snapshot.err());
        assertEquals("error: --output must be yaml or json, got table\n", snapshot.err());
    }

    @Test
    void theSameFlagHasTheSameNameAndHelpOnEveryCommand() {
        picocli.CommandLine cl = new picocli.CommandLine(new Main());
        java.util.function.BiFunction<String, String, String> help = (command, option) -> {
            picocli.CommandLine.Model.OptionSpec o = cl.getSubcommands().get(command).getCommandSpec().findOption(option);
            return o == null ? command + " has no " + option : String.join(" ", o.description());
        };
        for (String command : java.util.List.of("simulate", "diff", "explain", "validate", "verify")) {
            assertEquals(help.apply("simulate", "--output"), help.apply(command, "-o"), command);
        }
        for (String command : java.util.List.of("explain", "snapshot", "run")) {
            assertEquals(ClusterFlags.CONTEXT, help.apply(command, "--context"), command);
        }
        for (String command : java.util.List.of("snapshot", "run")) {
            assertEquals(ClusterFlags.KUBECONFIG, help.apply(command, "--kubeconfig"), command);
        }
        assertEquals(ClusterFlags.NAMESPACE, help.apply("explain", "-n"));
        assertTrue(String.join(" ", cl.getSubcommands().get("snapshot").getCommandSpec().usageMessage().description())
                .contains("Always every namespace (no -n)"));
        assertTrue(help.apply("snapshot", "-o").startsWith("yaml (one document per object) or json"));
    }
}
