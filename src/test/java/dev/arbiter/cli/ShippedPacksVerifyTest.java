package dev.arbiter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.engine.rules.RuleBook;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code arbiter verify} holds on every shipped pack: the acceptance specs pass, except the scenarios tagged
 * {@code @differs-in-<pack>}, which verify leaves out for that pack by default.
 */
class ShippedPacksVerifyTest {
    private static final Pattern COUNT = Pattern.compile("(\\d+) scenarios \\((\\d+) passed\\)");

    static List<Path> packs() throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> policies = Files.list(Path.of("deploy/policies"))) {
            policies.filter(p -> Files.isRegularFile(p.resolve(RuleBook.PACK_FILE))).sorted().forEach(out::add);
        }
        try (Stream<Path> examples = Files.list(Path.of("docs/examples"))) {
            examples.map(p -> p.resolve("rules")).filter(p -> Files.isRegularFile(p.resolve(RuleBook.PACK_FILE))).sorted().forEach(out::add);
        }
        return out;
    }

    @Test
    void theShippedPacksAreFound() throws IOException {
        assertEquals(List.of(Path.of("deploy/policies/capacity"), Path.of("deploy/policies/drf"), Path.of("deploy/policies/fair-usage"),
                Path.of("deploy/policies/reservation"),
                Path.of("docs/examples/protect-critical-inference/rules")), packs());
    }

    private static int everything;

    @org.junit.jupiter.api.BeforeAll
    static void theShippedRulesPassEveryScenario() {
        CliRunner all = CliRunner.run("verify", "--rules", "rules", "--report", "summary");
        assertEquals(0, all.exit(), all.out() + all.err());
        everything = passed(all.out());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("packs")
    void everyScenarioPassesButThoseTaggedAsWhereThePackDiffers(Path pack) {
        CliRunner r = CliRunner.run("verify", "--rules", pack.toString(), "--report", "summary");
        assertEquals(0, r.exit(), r.out() + r.err());
        int scenarios = passed(r.out());
        assertTrue(scenarios < everything, "the pack's @differs-in-" + RuleBook.load(pack).packName()
                + " scenarios are left out: " + scenarios + " of " + everything);
    }

    private static int passed(String out) {
        Matcher m = COUNT.matcher(out);
        assertTrue(m.find(), "every scenario passed: " + out);
        return Integer.parseInt(m.group(1));
    }
}
