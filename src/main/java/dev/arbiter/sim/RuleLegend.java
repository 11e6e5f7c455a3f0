package dev.arbiter.sim;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Short ids for the rule sentences that decisions name, so a decision line carries {@code [reclaim]} and the sentence
 * ("reclaim: a queue below its deserved share takes back from reclaimable queues above theirs") is printed once.
 *
 * <p>A rule's id is the concern before its colon, in lower case with dashes ({@code fair share: ...} →
 * {@code fair-share}); when the decisions name several rules of one concern, they are numbered in the order they
 * first appear ({@code victims-1}, {@code victims-2}). A rule without a colon is {@code rule}, numbered likewise.
 */
public final class RuleLegend {
    private final Map<String, String> idBySentence;
    private final Map<String, String> sentenceById;

    private RuleLegend(Map<String, String> idBySentence) {
        this.idBySentence = idBySentence;
        Map<String, String> byId = new LinkedHashMap<>();
        idBySentence.forEach((sentence, id) -> byId.put(id, sentence));
        this.sentenceById = Collections.unmodifiableMap(byId);
    }

    /** The rules named by the bindings and evictions of {@code cycles}, evictions of a cycle before its bindings. */
    public static RuleLegend of(List<CycleResult> cycles) {
        List<String> sentences = new ArrayList<>();
        for (CycleResult c : cycles) {
            for (Eviction e : c.evictions()) add(sentences, e.rule());
            for (Binding b : c.bindings()) add(sentences, b.rule());
        }
        return of(sentences);
    }

    /** Ids for these sentences (duplicates and nulls ignored), numbered within a concern in this order. */
    public static RuleLegend of(Iterable<String> rules) {
        Map<String, List<String>> byConcern = new LinkedHashMap<>();
        for (String r : rules) {
            if (r == null) continue;
            List<String> same = byConcern.computeIfAbsent(concern(r), k -> new ArrayList<>());
            if (!same.contains(r)) same.add(r);
        }
        Map<String, String> ids = new LinkedHashMap<>();
        byConcern.forEach((concern, sentences) -> {
            for (int i = 0; i < sentences.size(); i++) {
                ids.put(sentences.get(i), sentences.size() == 1 ? concern : concern + "-" + (i + 1));
            }
        });
        return new RuleLegend(ids);
    }

    private static void add(List<String> sentences, String rule) {
        if (rule != null && !sentences.contains(rule)) sentences.add(rule);
    }

    /** {@code "fair share: a queue's ..."} → {@code fair-share}; {@code rule} without a colon. */
    static String concern(String rule) {
        int colon = rule.indexOf(':');
        String head = colon <= 0 ? "rule" : rule.substring(0, colon).strip().toLowerCase(Locale.ROOT);
        String id = head.replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
        return id.isEmpty() || id.length() > 24 ? "rule" : id;
    }

    /** The short id of {@code rule}; "" for null; the sentence itself for a rule this legend does not know. */
    public String id(String rule) {
        if (rule == null) return "";
        return idBySentence.getOrDefault(rule, rule);
    }

    /** Id → sentence, in the order the ids were given. */
    public Map<String, String> entries() {
        return sentenceById;
    }

    public boolean isEmpty() {
        return sentenceById.isEmpty();
    }
}
