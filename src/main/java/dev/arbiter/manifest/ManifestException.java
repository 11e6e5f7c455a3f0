package dev.arbiter.manifest;

/**
 * Invalid manifest input: malformed YAML, a missing or ill-typed field, an unparseable quantity, a duplicate object,
 * or a path that cannot be read.
 *
 * <p>The message is always a single line meant for a person, without a stack trace, of the form
 * {@code <file>:<line>: <Kind> <namespace/name or name>: <field path>: <problem>}, for example
 * {@code seed/queues.yaml:12: Queue tenanta: spec.weight: must be a positive integer, got -1}. Messages about the
 * file as a whole drop the parts that do not apply, e.g. {@code bad.yaml:3: invalid YAML: <problem>} or
 * {@code missing.yaml: no such file or directory}. Lines are 1-based.
 */
public class ManifestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception; any line breaks in {@code message} are folded into single spaces. */
    public ManifestException(String message) {
        super(oneLine(message));
    }

    /** Creates the exception with its cause (kept for debugging, never printed in the message). */
    public ManifestException(String message, Throwable cause) {
        super(oneLine(message), cause);
    }

    static String oneLine(String text) {
        return text == null ? "" : text.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
