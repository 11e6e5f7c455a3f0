package dev.arbiter.manifest;

/**
 * The top-level manifest object being read: the file it came from, the line it starts on, and how messages name it
 * ({@code kind} is null until the kind is known, {@code id} is {@code namespace/name} or {@code name}).
 */
record Origin(String source, int line, String kind, String id) {

    static Origin of(String source, int line) {
        return new Origin(source, line, null, null);
    }

    Origin ofKind(String newKind) {
        return new Origin(source, line, newKind, id);
    }

    Origin named(String newId) {
        return new Origin(source, line, kind, newId);
    }

    /** {@code file:line} of the object's first line. */
    String location() {
        return source + ":" + line;
    }

    /** How messages name the object, e.g. {@code Pod team/p1}; "object" while the kind is still unknown. */
    String subject() {
        if (kind == null) return "object";
        return id == null ? kind : kind + " " + id;
    }

    /** An error about {@code path} (empty for the object itself) found at {@code atLine} of this object's file. */
    ManifestException error(int atLine, String path, String problem) {
        String field = path.isEmpty() ? "" : path + ": ";
        return new ManifestException(source + ":" + atLine + ": " + subject() + ": " + field + problem);
    }
}
