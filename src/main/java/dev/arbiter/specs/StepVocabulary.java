package dev.arbiter.specs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sentences a scenario may use, as {@code docs/writing-specs.md} lists them under "Step vocabulary" (the build
 * puts a copy of that file in the jar), and the ones closest to a step nobody defined — so {@code arbiter verify} can
 * answer a typo with the product owner's own words instead of Java.
 *
 * <p>The doc's notation: a list item's first code span is the pattern; {@code <x>} is a value, {@code [text]} optional
 * text, {@code {a|b}} alternatives; a pattern starting with "…" is a clause appended to a sentence (not suggested on
 * its own).
 */
public final class StepVocabulary {
    static final String RESOURCE = "dev/arbiter/specs/writing-specs.md";
    private static final Pattern ENTRY = Pattern.compile("^- `([^`]+)`");
    private static final Pattern KEYWORD = Pattern.compile("^(Given|When|Then|And|But) ");
    private static final int MAX_VARIANTS = 64;
    /** Sentences scoring this much worse than the closest one are not worth suggesting. */
    private static final double CLOSE_ENOUGH = 0.2;

    private final List<String> sentences;

    private StepVocabulary(List<String> sentences) {
        this.sentences = List.copyOf(sentences);
    }

    /** The vocabulary shipped in the jar (empty when the doc is missing, so suggestions are simply left out). */
    public static StepVocabulary shipped() {
        try (InputStream in = StepVocabulary.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            return in == null ? new StepVocabulary(List.of()) : parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The sentences of a doc's "## Step vocabulary" section, e.g. {@code Given queue "<name>" with weight <w>}. */
    static StepVocabulary parse(String doc) {
        int start = doc.indexOf("\n## Step vocabulary");
        if (start < 0) return new StepVocabulary(List.of());
        int end = doc.indexOf("\n## ", start + 1);
        List<String> out = new ArrayList<>();
        for (String line : doc.substring(start, end < 0 ? doc.length() : end).split("\n")) {
            Matcher m = ENTRY.matcher(line);
            if (m.find() && KEYWORD.matcher(m.group(1)).find()) out.add(m.group(1));
        }
        return new StepVocabulary(out);
    }

    public List<String> sentences() {
        return sentences;
    }

    /**
     * Up to {@code limit} documented sentences closest to {@code stepText} (the step without its keyword), closest
     * first, and none much further than the closest: words are compared in order (edits over the longer sentence's
     * length), a value ({@code 2}, {@code "tenanta"}) matches any {@code <x>}, and a word one or two typos away counts
     * half.
     */
    public List<String> closest(String stepText, int limit) {
        List<String> step = words(stepText.replaceAll("\"[^\"]*\"", " <v> ").replaceAll("\\b\\d+(\\.\\d+)?\\b", " <v> "));
        record Scored(String sentence, double score) {}
        List<Scored> scored = new ArrayList<>();
        for (String s : sentences) {
            String body = KEYWORD.matcher(s).replaceFirst("");
            double best = Double.MAX_VALUE;
            for (String variant : variants(body)) {
                List<String> w = words(variant.replaceAll("\"?<[^>]*>\"?", " <v> "));
                best = Math.min(best, distance(step, w) / Math.max(step.size(), w.size()));
            }
            scored.add(new Scored(s, best));
        }
        scored.sort(Comparator.comparingDouble(Scored::score));
        if (scored.isEmpty()) return List.of();
        double best = scored.get(0).score();
        return scored.stream().filter(x -> x.score() <= best + CLOSE_ENOUGH).limit(limit).map(Scored::sentence).toList();
    }

    /** The pattern with each {@code [optional]} part in and out and each {@code {a|b}} alternative (at most 64). */
    static List<String> variants(String pattern) {
        List<String> out = new ArrayList<>(List.of(""));
        int i = 0;
        while (i < pattern.length()) {
            char c = pattern.charAt(i);
            if (c == '[' || c == '{') {
                int close = pattern.indexOf(c == '[' ? ']' : '}', i);
                if (close < 0) close = pattern.length() - 1;
                String inner = pattern.substring(i + 1, close);
                List<String> choices = c == '[' ? List.of("", inner) : List.of(inner.split("\\|", -1));
                List<String> next = new ArrayList<>();
                for (String prefix : out) for (String choice : choices) if (next.size() < MAX_VARIANTS) next.add(prefix + choice);
                out = next;
                i = close + 1;
            } else {
                final char ch = c;
                out.replaceAll(prefix -> prefix + ch);
                i++;
            }
        }
        return out;
    }

    private static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        for (String w : text.toLowerCase(Locale.ROOT).split("[^a-z0-9<>/-]+")) if (!w.isEmpty()) out.add(w);
        return out;
    }

    /** Word-level edit distance: a word two letters or fewer from the other costs half a substitution. */
    private static double distance(List<String> a, List<String> b) {
        double[] prev = new double[b.size() + 1], cur = new double[b.size() + 1];
        for (int j = 0; j <= b.size(); j++) prev[j] = j;
        for (int i = 1; i <= a.size(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.size(); j++) {
                double sub = prev[j - 1] + cost(a.get(i - 1), b.get(j - 1));
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            double[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.size()];
    }

    private static double cost(String x, String y) {
        if (x.equals(y)) return 0;
        if (x.equals("<v>") || y.equals("<v>")) return 1;
        return letters(x, y) <= 2 ? 0.5 : 1;
    }

    /** Levenshtein distance between two words (short, so the quadratic table is cheap). */
    private static int letters(String x, String y) {
        int[] prev = new int[y.length() + 1], cur = new int[y.length() + 1];
        for (int j = 0; j <= y.length(); j++) prev[j] = j;
        for (int i = 1; i <= x.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= y.length(); j++) {
                int sub = prev[j - 1] + (x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[y.length()];
    }
}
