package dev.arbiter.policy;

/** One key of an order with its direction, e.g. {@code priority desc}. */
public record OrderKey<K extends Enum<K> & Words.Worded>(K key, Direction direction) {
    @Override
    public String toString() {
        return key.word() + " " + direction.word();
    }

    /** Parses {@code "<key> asc|desc|first|last"} (direction optional: asc). */
    public static <K extends Enum<K> & Words.Worded> OrderKey<K> parse(Class<K> type, String text, String what) {
        String[] parts = text == null ? new String[0] : text.trim().split("\\s+");
        if (parts.length < 1 || parts.length > 2 || parts[0].isEmpty()) {
            throw new IllegalArgumentException("an order key reads \"<key> asc|desc\", got \"" + text + "\"");
        }
        K key = Words.parse(type, parts[0], what + " key");
        Direction d = parts.length == 2 ? Words.parse(Direction.class, parts[1], "direction") : Direction.ASC;
        return new OrderKey<>(key, d);
    }
}
