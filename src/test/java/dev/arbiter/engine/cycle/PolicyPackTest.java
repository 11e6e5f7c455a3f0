package dev.arbiter.engine.cycle;

import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.rules.RuleCompileException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Packs: a folder that names its base and holds only what differs (added, replaced and disabled rules, settings). */
class PolicyPackTest {
    private static final String PROTECTED_MARKER = "victims: a pod marked volcano.sh/preemptable false is never evicted";

    @TempDir
    Path dir;

    private Path pack(String name, String packYaml) throws IOException {
        Path p = Files.createDirectories(dir.resolve(name));
        Files.writeString(p.resolve(RuleBook.PACK_FILE), packYaml);
        return p;
    }

    private static String rule(String name) {
        return """
                package arbiter.policy;
                import dev.arbiter.facts.JobFact;
                rule "%s"
                ruleflow-group "policy"
                when
                    JobFact( )
                then
                end
                """.formatted(name);
    }

    @Test
    void anEmptyPackOverTheShippedPolicyIsTheShippedPolicy() throws IOException {
        Path p = pack("same", "extends: shipped\n");
        RuleBook book = RuleBook.load(p);
        assertEquals(Shipped.RULES.ruleNames(), book.ruleNames());
        assertEquals(Shipped.RULES.settings(), book.settings());
        assertEquals(Shipped.RULES.files().stream().map(f -> f.toAbsolutePath().normalize()).toList(),
                book.files().stream().map(f -> f.toAbsolutePath().normalize()).toList());
        assertNotEquals(Shipped.RULES.generation(), book.generation(), "pack.yaml is part of what went in");
        assertEquals(List.of(p.toAbsolutePath().normalize(), Path.of("rules").toAbsolutePath().normalize()), RuleBook.foldersOf(p));
    }

    @Test
    void aFileAddsAFileOfTheSameNameReplacesAndDisableDrops() throws IOException {
        Path p = pack("mine", "extends: " + Path.of("rules").toAbsolutePath() + "\ndisable:\n  - \"" + PROTECTED_MARKER + "\"\n");
        Files.writeString(p.resolve("extra.drl"), rule("extra: an added rule"));
        Files.writeString(p.resolve("gang.drl"), rule("gang: replaced"));
        RuleBook book = RuleBook.load(p);
        List<String> names = book.ruleNames();
        assertTrue(names.contains("extra: an added rule"), names.toString());
        assertTrue(names.contains("gang: replaced"), names.toString());
        assertFalse(names.contains("gang: a job starts only when minMember of its tasks can run together"), names.toString());
        assertFalse(names.contains(PROTECTED_MARKER), names.toString());
        assertEquals(Shipped.RULES.ruleNames().size() + 1 - 1, names.size(), "one added, one replaced by one, one disabled");
        assertTrue(book.files().contains(p.resolve("gang.drl")), "the pack's gang.drl, not the base's: " + book.files());
        assertEquals(null, book.locate(PROTECTED_MARKER), "a disabled rule is nowhere");
        assertEquals(p.resolve("extra.drl") + ":3", book.locate("extra: an added rule"));
    }

    @Test
    void settingsOverlayFromTheBaseUpThroughPacksOfPacks() throws IOException {
        Path middle = pack("middle", "extends: shipped\n");
        Files.writeString(middle.resolve(RuleBook.SETTINGS_FILE), "churn:\n  minRuntime: 10m\n  maxEvictionsPerCycle: 7\n");
        Path top = pack("top", "extends: ../middle\n");
        Files.writeString(top.resolve(RuleBook.SETTINGS_FILE), "churn:\n  maxEvictionsPerCycle: 3\n");
        RuleBook book = RuleBook.load(top);
        assertEquals(600, book.settings().churn().minRuntimeSeconds(), "from the middle pack");
        assertEquals(3, book.settings().churn().maxEvictionsPerCycle(), "the top pack's own");
        assertEquals(Shipped.RULES.settings().churn().maxEvictionsPerQueuePerCycle(),
                book.settings().churn().maxEvictionsPerQueuePerCycle(), "from the shipped policy.yaml");

        String before = book.generation();
        Files.writeString(middle.resolve(RuleBook.SETTINGS_FILE), "churn:\n  minRuntime: 20m\n");
        assertNotEquals(before, RuleBook.generationOf(top), "a base's edit changes the pack's generation");
    }

    @Test
    void mistakesInPackYamlNameTheFileAndLine() throws IOException {
        Path missing = pack("missing", "# a pack whose base is not there\nextends: ../nowhere\n");
        RuleCompileException e = assertThrows(RuleCompileException.class, () -> RuleBook.load(missing));
        assertEquals(List.of(missing.resolve("pack.yaml") + ":2: extends: ../nowhere (" + dir.resolve("nowhere")
                + ") is not a folder"), e.problems());

        Path unknownRule = pack("unknown-rule", "extends: shipped\ndisable:\n  - \"no such rule\"\n");
        e = assertThrows(RuleCompileException.class, () -> RuleBook.load(unknownRule));
        assertEquals(List.of(unknownRule.resolve("pack.yaml") + ":3: disable: no rule named \"no such rule\""), e.problems());

        Path unknownField = pack("unknown-field", "extends: shipped\nreplace: [gang.drl]\n");
        e = assertThrows(RuleCompileException.class, () -> RuleBook.load(unknownField));
        assertEquals(List.of(unknownField.resolve("pack.yaml") + ":2: replace: unknown field (known: name, extends, disable)"), e.problems());

        Path noBase = pack("no-base", "disable: []\n");
        e = assertThrows(RuleCompileException.class, () -> RuleBook.load(noBase));
        assertTrue(e.problems().get(0).startsWith(noBase.resolve("pack.yaml") + ":1: extends: must name the folder"), e.problems().toString());
    }

    @Test
    void packsThatExtendEachOtherInACircleAreRefused() throws IOException {
        Path a = pack("a", "extends: ../b\n");
        pack("b", "extends: ../a\n");
        RuleCompileException e = assertThrows(RuleCompileException.class, () -> RuleBook.load(a));
        assertTrue(e.problems().get(0).endsWith("pack.yaml:1: extends: packs extend each other in a circle"), e.problems().toString());
    }
}
