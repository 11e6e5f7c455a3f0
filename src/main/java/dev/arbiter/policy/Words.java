package dev.arbiter.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The policy's words: every enum of the vocabulary is written in policy files as lower-case words
 * ({@code "newest first"}, {@code "fifo"}), and read back strictly, so an unknown word is an error that lists the
 * known ones.
 */
public final class Words {
    private Words() {}

    /** An enum constant whose policy spelling is {@link #word()}. */
    public interface Worded {
        String word();
    }

    /** The constant spelled {@code word} (case and surrounding blanks ignored), or null. */
    public static <E extends Enum<E> & Worded> E find(Class<E> type, String word) {
        if (word == null) return null;
        String w = word.trim().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
        for (E e : type.getEnumConstants()) if (e.word().equals(w)) return e;
        return null;
    }

    /** The constant spelled {@code word}; an {@link IllegalArgumentException} naming the known words otherwise. */
    public static <E extends Enum<E> & Worded> E parse(Class<E> type, String word, String what) {
        E e = find(type, word);
        if (e == null) {
            throw new IllegalArgumentException("unknown " + what + " \"" + word + "\" (known: " + known(type) + ")");
        }
        return e;
    }

    /** {@code a, b, c}: the known spellings. */
    public static <E extends Enum<E> & Worded> String known(Class<E> type) {
        List<String> out = new ArrayList<>();
        for (E e : type.getEnumConstants()) out.add(e.word());
        return String.join(", ", out);
    }
}
