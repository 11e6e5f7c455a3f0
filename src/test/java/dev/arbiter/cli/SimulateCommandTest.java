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
}
