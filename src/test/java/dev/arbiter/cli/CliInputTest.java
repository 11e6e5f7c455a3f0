package dev.arbiter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 34, item 13: bad command-line input gets one line and the documented exit code. */
class CliInputTest {
    @TempDir
    Path dir;

    /** A copy of the shipped rules folder, to add a file to. */
    private Path shippedRules() throws java.io.IOException {
        Path rules = Files.createDirectories(dir.resolve("rules"));
        try (var files = Files.list(Path.of("rules"))) {
            for (Path p : files.toList()) Files.copy(p, rules.resolve(p.getFileName()));
        }
        return rules;
    }

    @Test
    void anOutOfRangeNumberIsOneLineNotTheUsage() {
        CliRunner r = CliRunner.run("simulate", "--max-cycles", "99999999999", "deploy/examples/seed");
        assertEquals(Main.INVALID_INPUT, r.exit());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("error: ") && r.err().contains("--max-cycles") && r.err().contains("99999999999")
                && r.err().contains("arbiter simulate --help"), r.err());
    }

    @Test
    void anUnknownOptionIsOneLine() {
        CliRunner r = CliRunner.run("simulate", "--max-cycle", "3", "deploy/examples/seed");
        assertEquals(Main.INVALID_INPUT, r.exit());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("--max-cycle"), r.err());
    }

    @Test
    void aBinaryRuleFileIsNamedAsNotUtf8() throws Exception {
        Path rules = shippedRules();
        Files.write(rules.resolve("binary.drl"), new byte[] {(byte) 0xC3, (byte) 0x28, 0, 1, 2, (byte) 0xFF});
        CliRunner r = CliRunner.run("validate", "--rules", rules.toString());
        assertEquals(Main.RULES_BROKEN, r.exit(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("binary.drl: not UTF-8 text"), r.err());
    }

    /** Issue 34, item 10: a device that never ends is refused with one line (it filled the heap: OutOfMemoryError). */
    @Test
    void aManifestThatNeverEndsIsOneLine() {
        CliRunner r = CliRunner.run("simulate", "/dev/zero");
        assertEquals(Main.INVALID_INPUT, r.exit(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("/dev/zero") && r.err().contains("larger than 256 MiB"), r.err());
    }

    /**
     * Issue 34, item 10: a queue chain 3,000 deep overflowed the fair-share recursion (a StackOverflowError trace, exit
     * 1); the queues past 64 levels are now Closed with the reason, as a queue with an unknown parent is.
     */
    @Test
    void aQueueChainThousandsDeepIsServedToItsLimitAndTheRestSaySo() throws Exception {
        StringBuilder yaml = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            yaml.append("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q").append(i)
                    .append("}\nspec:\n  weight: 1\n").append(i == 0 ? "" : "  parent: q" + (i - 1) + "\n").append("---\n");
        }
        yaml.append("""
                apiVersion: v1
                kind: Node
                metadata: {name: n1}
                status:
                  allocatable: {cpu: '8', memory: 32Gi, pods: '110'}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: g, namespace: t}
                spec: {minMember: 1, queue: q2999}
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: p
                  namespace: t
                  annotations: {scheduling.k8s.io/group-name: g}
                spec:
                  schedulerName: volcano
                  containers:
                  - name: c
                    image: i
                    resources: {requests: {cpu: '1'}}
                """);
        Path file = dir.resolve("chain.yaml");
        Files.writeString(file, yaml);
        CliRunner r = CliRunner.run("simulate", file.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("queue tree deeper than 64 levels"), "the reason is shown");
    }

    /** Issue 34, item 10: a rule that recurses without end is the rules' fault: one line, exit 3 (was exit 1). */
    @Test
    void aRuleThatRecursesWithoutEndIsOneLineAndExit3() throws Exception {
        Path rules = shippedRules();
        Files.writeString(rules.resolve("deep.drl"), """
                package arbiter.policy;

                import dev.arbiter.facts.QueueFact;

                function int deeper(int n) {
                    return deeper(n + 1) + 1;
                }

                rule "deep: recurses without end"
                ruleflow-group "policy"
                when
                    QueueFact( )
                then
                    deeper(0);
                end
                """);
        CliRunner r = CliRunner.run("simulate", "--rules", rules.toString(), "deploy/examples/seed");
        assertEquals(Main.RULES_BROKEN, r.exit(), r.err());
        assertTrue(r.err().contains("deep.drl") && r.err().contains("recursed without end"), r.err());
        assertTrue(!r.err().contains("\tat ") && r.err().strip().lines().count() <= 2, r.err());
    }

    @Test
    void outputThatCannotBeWrittenFailsWithOneLine() {
        // As stdout on /dev/full: every write fails.
        PrintStream full = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) throws java.io.IOException {
                throw new java.io.IOException("No space left on device");
            }
        }, true);
        StringWriter err = new StringWriter();
        int exit = Main.run(new String[] {"simulate", "deploy/examples/seed"}, new PrintWriter(full, true), new PrintWriter(err, true));
        assertEquals(1, exit, err.toString());
        assertEquals(1, err.toString().strip().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("error: the output could not be written"), err.toString());
    }
}
