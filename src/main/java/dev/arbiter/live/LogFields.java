package dev.arbiter.live;

import org.slf4j.spi.LoggingEventBuilder;

/**
 * The fields of a log line that names an object: {@code pod}, {@code podgroup}, {@code queue}, {@code node} (by
 * {@code namespace/name} or name), else {@code object} ({@code "Kind key"}). With {@code --log-format json} they are
 * top-level fields of the line's object; as text they follow the message as {@code key=value}.
 */
final class LogFields {
    private LogFields() {}

    /** The field an object of {@code kind} is named by, or null for kinds without one of their own. */
    static String fieldOf(String kind) {
        return switch (kind) {
            case "Pod" -> "pod";
            case "PodGroup", "WorkloadPodGroup" -> "podgroup";
            case "Queue" -> "queue";
            case "Node" -> "node";
            default -> null;
        };
    }

    /** {@code line} with the field naming object {@code key} of {@code kind}. */
    static LoggingEventBuilder object(LoggingEventBuilder line, String kind, String key) {
        String field = fieldOf(kind);
        return field == null ? line.addKeyValue("object", kind + " " + key) : line.addKeyValue(field, key);
    }

    /**
     * {@code line} with the field naming {@code id}, an object as {@code "Kind key"} (e.g. {@code "Pod team/p1"}), or a
     * pod's key alone.
     */
    static LoggingEventBuilder id(LoggingEventBuilder line, String id) {
        int space = id.indexOf(' ');
        return space < 0 ? line.addKeyValue("pod", id) : object(line, id.substring(0, space), id.substring(space + 1));
    }

    /** {@code line} with {@code key=value}, or as it is when the value is unknown (null): no {@code rule=null}. */
    static LoggingEventBuilder known(LoggingEventBuilder line, String key, Object value) {
        return value == null ? line : line.addKeyValue(key, value);
    }
}
