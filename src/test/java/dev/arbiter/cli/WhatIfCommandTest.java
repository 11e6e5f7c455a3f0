package dev.arbiter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** {@code arbiter whatif}: its answers on the seed, its output formats, and bad input. */
class WhatIfCommandTest {
    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int exit = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void anUnknownJobIsOneLineAndExitTwo() {
        Run r = run("whatif", "a01/nope", "deploy/examples/seed");
        assertEquals(2, r.exit());
        assertEquals("error: no pod or PodGroup a01/nope (expected namespace/name)\n", r.err());
    }

    @Test
    void aJobThatRunsIsSaidToBeNotPendingWithExitZero() {
        Run r = run("whatif", "a01/qwen2-72b-unified-pg", "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("not pending: started in cycle 62"), r.out());
    }

    @Test
    void theSeedGangBeforeReclaimNamesTheMinimumRuntimeFirst() {
        Run r = run("whatif", "qwen2-72b-unified-pg", "-n", "a01", "--at-cycle", "30", "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains(" 1. [policy] policy.yaml churn.minRuntime: 60s -> 29s"), r.out());
        assertTrue(r.out().contains("asked as if it had arrived at cycle 30"), r.out());
    }

    @Test
    void theLeaderWorkerSetNameResolvesToItsPodGroup() {
        Run r = run("whatif", "a01/qwen2-72b-unified", "--at-cycle", "30", "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("is PodGroup a01/qwen2-72b-unified-pg"), r.out());
    }

    @Test
    void jsonListsTheChangesWithTheFieldsAToolNeeds() {
        Run r = run("whatif", "a01/qwen2-72b-unified-pg", "--at-cycle", "30", "-o", "json", "--top", "1", "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertEquals("changes-found", doc.get("verdict").asString());
        assertEquals(1, doc.get("changes").size());
        JsonNode c = doc.get("changes").get(0);
        assertEquals("setting", c.get("kind").asString());
        assertEquals("churn.minRuntime", c.get("setting").asString());
        assertEquals("29s", c.get("to").asString());
        // --top 1: the policy tier found one, so the dearer tiers were not searched, and the answer says so.
        assertEquals(0, doc.get("moreChanges").asInt());
        assertTrue(doc.get("notFound").toString().contains("jobs end: not tried"), doc.get("notFound").toString());
    }

    @Test
    void yamlIsTheSameDocument() {
        Run r = run("whatif", "a01/qwen2-72b-unified-pg", "--at-cycle", "30", "-o", "yaml", "--top", "1", "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("verdict: changes-found"), r.out());
    }

    @Test
    void anUnknownContextIsOneLineAndExitTwo(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path kubeconfig = java.nio.file.Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: one, cluster: {server: "https://127.0.0.1:6441"}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: first, context: {cluster: one, user: u}}]
                current-context: first
                """);
        Run r = run("whatif", "p", "--kubeconfig", kubeconfig.toString(), "--context", "third");
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().contains("--context third: no such context"), r.err());
        assertEquals(2, run("whatif", "a01/x", "--at-cycle", "3", "--kubeconfig", kubeconfig.toString()).exit());
    }

    @Test
    void aPodGroupWithoutPodsIsOneLineAndExitTwo(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path yaml = java.nio.file.Files.writeString(dir.resolve("cluster.yaml"), """
                apiVersion: v1
                kind: Node
                metadata: {name: n1}
                status: {allocatable: {cpu: "8", pods: "10"}}
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: empty, namespace: x}
                spec: {minMember: 1}
                """);
        Run r = run("whatif", "x/empty", yaml.toString());
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.err().startsWith("error: PodGroup x/empty has no pod at cycle ") && r.err().lines().count() == 1, r.err());
    }

    @Test
    void badArgumentsAreOneLineAndExitTwo() {
        assertEquals(2, run("whatif", "a01/x", "--at-cycle", "0", "deploy/examples/seed").exit());
        assertEquals(2, run("whatif", "a01/x", "--top", "0", "deploy/examples/seed").exit());
        assertEquals(2, run("whatif", "a01/x").exit());
        Run r = run("whatif", "a01/qwen2-72b-unified-pg", "-o", "xml", "deploy/examples/seed");
        assertEquals(2, r.exit());
        assertEquals("error: --output must be table, wide, json or yaml, got xml\n", r.err());
    }
}
