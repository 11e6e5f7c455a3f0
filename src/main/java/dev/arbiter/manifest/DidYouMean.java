package dev.arbiter.manifest;

import java.util.Collection;

/**
 * The "did you mean" of a likely typo: the one candidate clearly closest to a word, by the optimal-string-alignment
 * distance (Damerau-Levenshtein where no substring is edited twice: an insertion, deletion, substitution or swap of two
 * neighbours costs 1; case differences cost nothing). A candidate is offered only when it is at most 2 edits away, fewer
 * than a third of the word's length, and no other candidate is as close.
 */
public final class DidYouMean {
    private DidYouMean() {}

    /** The candidate {@code word} most likely misspells, or null (none close enough, or two equally close). */
    public static String among(String word, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        boolean tie = false;
        for (String c : candidates) {
            if (c.equals(word)) return null;
            if (Math.abs(c.length() - word.length()) > 2) continue; // more than 2 edits apart
            int d = distance(word, c);
            if (d < bestDistance) {
                best = c;
                bestDistance = d;
                tie = false;
            } else if (d == bestDistance && !c.equals(best)) {
                tie = true;
            }
        }
        if (best == null || tie || bestDistance > 2 || bestDistance * 3 >= Math.max(word.length(), 1)) return null;
        return best;
    }

    /** The optimal-string-alignment distance between {@code a} and {@code b}, ignoring case. */
    static int distance(String a, String b) {
        String s = a.toLowerCase(java.util.Locale.ROOT);
        String t = b.toLowerCase(java.util.Locale.ROOT);
        int[][] d = new int[s.length() + 1][t.length() + 1];
        for (int i = 0; i <= s.length(); i++) d[i][0] = i;
        for (int j = 0; j <= t.length(); j++) d[0][j] = j;
        for (int i = 1; i <= s.length(); i++) {
            for (int j = 1; j <= t.length(); j++) {
                int cost = s.charAt(i - 1) == t.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && s.charAt(i - 1) == t.charAt(j - 2) && s.charAt(i - 2) == t.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[s.length()][t.length()];
    }
}
