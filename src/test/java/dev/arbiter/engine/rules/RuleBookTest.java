package dev.arbiter.engine.rules;

import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.engine.state.NodeState;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading policy from a folder: problems reported as file:line, content-hash generations, no pod × node joins. */
class RuleBookTest {
    @TempDir
    Path dir;

    @Test
    void theShippedRulesCompileOneFilePerConcern() {
        List<String> files = Shipped.RULES.files().stream().map(p -> p.getFileName().toString()).toList();
        assertEquals(List.of("churn.drl", "enqueue.drl", "fair-share.drl", "gang.drl", "lending.drl", "order.drl", "preempt.drl", "priority.drl",
                "reclaim.drl", "reservation.drl", "victims.drl"), files);
        assertTrue(Shipped.RULES.ruleNames().contains("gang: a job starts only when minMember of its tasks can run together"));
    }

    @Test
    void anUnknownFieldIsReportedWithFileAndLine() throws IOException {
        Files.writeString(dir.resolve("bad.drl"), """
                package arbiter.policy;
                import dev.arbiter.facts.JobFact;
                rule "typo"
                when
                    JobFact( minMembr > 3 )
                then
                end
                """);
        RuleCompileException e = assertThrows(RuleCompileException.class, () -> RuleBook.load(dir));
        assertTrue(e.problems().get(0).startsWith(dir.resolve("bad.drl") + ":5: "), e.problems().toString());
        assertTrue(e.problems().stream().allMatch(p -> !p.contains("\n")));
    }

    @Test
    void aFolderWithoutRulesIsAnError() {
        RuleCompileException e = assertThrows(RuleCompileException.class, () -> RuleBook.load(dir));
        assertTrue(e.getMessage().contains("no .drl rule files"));
    }

    @Test
    void theGenerationIsAContentHash() throws IOException {
        Files.writeString(dir.resolve("a.drl"), "package arbiter.policy;\n");
        String first = RuleBook.load(dir).generation();
        assertEquals(first, RuleBook.load(dir).generation());
        Files.writeString(dir.resolve("a.drl"), "package arbiter.policy;\n// changed\n");
        assertNotEquals(first, RuleBook.load(dir).generation());
    }

    /**
     * No rule may join pods with nodes. The fact vocabulary has no node fact at all, so it suffices that no rule
     * file mentions one — this test keeps it that way.
     */
    @Test
    void noRuleJoinsPodsWithNodes() throws IOException {
        Pattern nodeFact = Pattern.compile("\\b(Node\\w*|\\w*NodeState|NodeSpec)\\s*\\(");
        try (Stream<Path> s = Files.list(Path.of("rules"))) {
            for (Path p : s.filter(f -> f.toString().endsWith(".drl")).toList()) {
                String text = Files.readString(p);
                assertTrue(!nodeFact.matcher(text).find(), p + " matches a node fact");
                assertTrue(!text.contains("dev.arbiter.model.NodeSpec"), p + " imports NodeSpec");
            }
        }
        for (Class<?> c : new Class<?>[] {dev.arbiter.facts.JobFact.class, dev.arbiter.facts.TaskFact.class,
                dev.arbiter.facts.QueueFact.class}) {
            for (var f : c.getDeclaredFields()) {
                assertTrue(!f.getName().toLowerCase().contains("node"), c.getSimpleName() + "." + f.getName());
            }
        }
    }
}
