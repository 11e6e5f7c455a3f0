package dev.arbiter.manifest;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * What controllers make up that a manifest does not hold: an object's UID (the API server assigns one; Volcano names a
 * Job's PodGroup and the PodGroup of plain pods after it) and the random suffix of a name made from
 * {@code generateName} (a Job's pods). In the simulator both are derived from the object's identity, so a simulation
 * names the same things every time; {@code metadata.uid}, when the manifest has one, is used as it is.
 */
final class Controllers {
    /** The characters the API server's name generator picks from (no vowels, no look-alikes). */
    private static final String ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

    private Controllers() {}

    /** {@code metadata.uid}, or a UID derived from the object's kind, namespace and name. */
    static String uid(Field object, String kind, Metadata meta) {
        String given = object.get("metadata", "uid").string();
        if (given != null) return given;
        return UUID.nameUUIDFromBytes((kind + "/" + meta.namespaceOrDefault() + "/" + meta.name())
                .getBytes(StandardCharsets.UTF_8)).toString();
    }

    /**
     * Five characters as {@code generateName} appends them, derived from {@code seed} and {@code index}: e.g. a Job
     * {@code train}'s pods {@code train-x7k2p}, {@code train-9bqzd}.
     */
    static String suffix(String seed, int index) {
        long h = UUID.nameUUIDFromBytes((seed + "#" + index).getBytes(StandardCharsets.UTF_8)).getMostSignificantBits();
        StringBuilder sb = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            sb.append(ALPHANUMS.charAt((int) Long.remainderUnsigned(h, ALPHANUMS.length())));
            h = Long.divideUnsigned(h, ALPHANUMS.length());
        }
        return sb.toString();
    }
}
