package dev.arbiter.specs;

import dev.arbiter.engine.rules.RuleBook;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The policy the specs run against: the folder named by the system property {@value #PROPERTY} ({@code arbiter
 * verify --rules DIR} sets it), else {@code rules} in the working directory. A compile takes a second or two, so each
 * folder is compiled once per JVM and kept, keyed by its absolute path and a fingerprint of its {@code .drl} files
 * (names, sizes, modification times), so an edited folder is compiled again.
 */
public final class SpecRules {
    public static final String PROPERTY = "arbiter.rules";
    private static final Map<String, RuleBook> COMPILED = new ConcurrentHashMap<>();

    private SpecRules() {}

    /** The folder the steps use now. */
    public static Path folder() {
        String prop = System.getProperty(PROPERTY);
        return Path.of(prop == null || prop.isBlank() ? "rules" : prop);
    }

    /** The compiled rules of {@link #folder()}. */
    static RuleBook current() {
        return load(folder());
    }

    /**
     * The compiled rules of {@code folder}, from the cache when its files have not changed.
     *
     * @throws dev.arbiter.engine.rules.RuleCompileException when the folder does not compile (not cached)
     */
    public static RuleBook load(Path folder) {
        Path abs = folder.toAbsolutePath().normalize();
        return COMPILED.computeIfAbsent(abs + "\n" + fingerprint(abs), k -> RuleBook.load(abs));
    }

    private static String fingerprint(Path folder) {
        if (!Files.isDirectory(folder)) return "missing";
        try (Stream<Path> files = Files.list(folder)) {
            StringBuilder sb = new StringBuilder();
            for (Path p : files.filter(f -> f.toString().endsWith(".drl")).sorted().toList()) {
                sb.append(p.getFileName()).append(':').append(Files.size(p)).append(':')
                        .append(Files.getLastModifiedTime(p).toMillis()).append(';');
            }
            return sb.toString();
        } catch (IOException e) {
            return "unreadable";
        }
    }
}
