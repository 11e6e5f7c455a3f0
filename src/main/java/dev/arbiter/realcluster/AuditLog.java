package dev.arbiter.realcluster;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The API server's audit log (one JSON event per completed request): what the server really answered, counted on the
 * server's side. A test takes a {@link #mark()} before it acts and reads the requests since.
 */
final class AuditLog {
    /** One request as the API server saw it. {@code resource} is e.g. {@code pods}, {@code subresource} e.g. {@code binding}. */
    record Request(String user, String userAgent, String verb, String uri, int code, String resource,
                   String subresource, String namespace, String name, String group) {
        boolean by(String username) {
            return username.equals(user);
        }

        boolean on(String resource, String subresource) {
            return resource.equals(this.resource) && java.util.Objects.equals(subresource, this.subresource);
        }

        @Override
        public String toString() {
            return code + " " + verb + " " + uri + " (" + user + ")";
        }
    }

    private final Path file;

    AuditLog(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    /** Where the log ends now. */
    long mark() {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The requests logged since {@code mark}. */
    List<Request> since(long mark) {
        List<Request> out = new ArrayList<>();
        if (!Files.exists(file)) return out;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long length = f.length();
            if (mark > length) mark = 0;
            byte[] bytes = new byte[(int) (length - mark)];
            f.seek(mark);
            f.readFully(bytes);
            for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || !line.endsWith("}")) continue;
                out.add(parse(line));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out;
    }

    List<Request> since(long mark, Predicate<Request> filter) {
        return since(mark).stream().filter(filter).toList();
    }

    @SuppressWarnings("unchecked")
    private static Request parse(String line) {
        Map<String, Object> e = Serialization.unmarshal(line, Map.class);
        Map<String, Object> user = (Map<String, Object>) e.getOrDefault("user", Map.of());
        Map<String, Object> ref = (Map<String, Object>) e.getOrDefault("objectRef", Map.of());
        Map<String, Object> status = (Map<String, Object>) e.getOrDefault("responseStatus", Map.of());
        Object code = status.get("code");
        return new Request((String) user.get("username"), (String) e.get("userAgent"), (String) e.get("verb"),
                (String) e.get("requestURI"), code instanceof Number n ? n.intValue() : 0, (String) ref.get("resource"),
                (String) ref.get("subresource"), (String) ref.get("namespace"), (String) ref.get("name"),
                (String) ref.get("apiGroup"));
    }
}
