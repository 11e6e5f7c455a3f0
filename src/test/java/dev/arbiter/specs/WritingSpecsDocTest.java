package dev.arbiter.specs;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/writing-specs.md} cannot rot: every step pattern it lists is used by at least one scenario in
 * {@code features/}, and every step a scenario uses is listed.
 *
 * <p>The doc's notation: in its "Step vocabulary" section, each entry is a list item whose first code span is the
 * pattern, starting with a keyword (a sentence) or with "…" (a clause appended to a sentence). {@code <x>} is a value,
 * {@code [text]} optional text, {@code {a|b}} alternatives.
 */
class WritingSpecsDocTest {
    private static final Path DOC = Path.of("docs/writing-specs.md");
    private static final Pattern ENTRY = Pattern.compile("^- `([^`]+)`");
    private static final Pattern KEYWORD = Pattern.compile("^(Given|When|Then|And|But) ");

    /** A documented pattern and the regular expression it stands for. */
    record Entry(String pattern, boolean clause, Pattern regex) {}

    private static List<Entry> sentences;
    private static List<Entry> clauses;
    private static List<FeatureFiles.Step> steps;
    private static Pattern anyClause;

    @BeforeAll
    static void read() throws IOException {
        List<Entry> entries = vocabulary(Files.readString(DOC));
        sentences = entries.stream().filter(e -> !e.clause()).toList();
        clauses = entries.stream().filter(Entry::clause).toList();
        anyClause = Pattern.compile(clauses.stream().map(c -> c.regex().pattern()).collect(Collectors.joining("|", "(?:", ")")));
        steps = FeatureFiles.steps();
    }

    static List<Entry> vocabulary(String doc) {
        int start = doc.indexOf("\n## Step vocabulary");
        int end = doc.indexOf("\n## ", start + 1);
        if (start < 0) fail("docs/writing-specs.md has no \"## Step vocabulary\" section");
        List<Entry> out = new ArrayList<>();
        for (String line : doc.substring(start, end < 0 ? doc.length() : end).split("\n")) {
            Matcher m = ENTRY.matcher(line);
            if (!m.find()) continue;
            String pattern = m.group(1);
            if (pattern.startsWith("…")) {
                out.add(new Entry(pattern, true, Pattern.compile(toRegex(pattern.substring(1)))));
            } else {
                Matcher k = KEYWORD.matcher(pattern);
                if (!k.find()) fail("a vocabulary entry must start with a keyword or with \"…\": " + pattern);
                out.add(new Entry(pattern, false, Pattern.compile(toRegex(pattern.substring(k.end())))));
            }
        }
        return out;
    }

    /** {@code <x>} → any text, {@code [x]} → optional, {@code {a|b}} → either; everything else literal. */
    static String toRegex(String pattern) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            switch (c) {
                case '<' -> {
                    i = pattern.indexOf('>', i);
                    re.append(".+?");
                }
                case '[' -> re.append("(?:");
                case ']' -> re.append(")?");
                case '{' -> re.append("(?:");
                case '}' -> re.append(')');
                case '|' -> re.append('|');
                default -> re.append("\\\\.^$?*+()".indexOf(c) >= 0 ? "\\" + c : String.valueOf(c));
            }
        }
        return re.toString();
    }

    private static boolean matchesSentence(Entry sentence, String step) {
        return Pattern.compile(sentence.regex().pattern() + anyClause.pattern() + "*").matcher(step).matches();
    }

    @Test
    void theDocListsTheVocabulary() {
        assertTrue(sentences.size() >= 30, "only " + sentences.size() + " sentences found in " + DOC);
        assertTrue(clauses.size() >= 3, "only " + clauses.size() + " clauses found in " + DOC);
    }

    @Test
    void everyDocumentedStepIsUsedByAScenario() {
        List<String> unused = new ArrayList<>();
        for (Entry s : sentences) {
            if (steps.stream().noneMatch(step -> matchesSentence(s, step.text()))) unused.add(s.pattern());
        }
        for (Entry c : clauses) {
            if (steps.stream().noneMatch(step -> c.regex().matcher(step.text()).find())) unused.add(c.pattern());
        }
        assertTrue(unused.isEmpty(), "documented in " + DOC + " but used by no scenario in features/:\n  "
                + String.join("\n  ", unused));
    }

    @Test
    void everyStepTheScenariosUseIsDocumented() {
        List<String> undocumented = steps.stream()
                .filter(step -> sentences.stream().noneMatch(s -> matchesSentence(s, step.text())))
                .map(FeatureFiles.Step::toString).distinct().toList();
        assertTrue(undocumented.isEmpty(), "used in features/ but not documented in " + DOC + ":\n  "
                + String.join("\n  ", undocumented));
    }
}
