package dev.arbiter.engine.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped policy the jar carries: on the class path as the repository's rules/, and unpacked whole, once per content. */
class ShippedRulesTest {
    @TempDir
    Path tmp;

    @Test
    void theClassPathCarriesTheRepositorysRules() throws IOException {
        Path carried = ShippedRules.folder();
        assertEquals(names(Path.of("rules")), names(carried));
        for (String f : names(Path.of("rules"))) {
            assertEquals(-1L, Files.mismatch(Path.of("rules", f), carried.resolve(f)), f);
        }
        RuleBook.load(carried); // and it compiles
    }

    @Test
    void aJarsPolicyIsUnpackedWholeOncePerContent() throws IOException {
        Path jar = tmp.resolve("a.jar");
        Path first = unpackFrom(jar, "one");
        assertEquals("rule one", Files.readString(first.resolve("a.drl")));
        assertEquals("x: 1\n", Files.readString(first.resolve("policy.yaml")));
        assertEquals(first, unpackFrom(tmp.resolve("b.jar"), "one"), "the same content: the same folder, not unpacked again");
        assertNotEquals(first, unpackFrom(tmp.resolve("c.jar"), "two"), "another release: a folder of its own");
    }

    private static Path unpackFrom(Path jar, String content) throws IOException {
        try (FileSystem fs = FileSystems.newFileSystem(URI.create("jar:" + jar.toUri()), Map.of("create", "true"))) {
            Path dir = Files.createDirectories(fs.getPath(ShippedRules.RESOURCE));
            Files.writeString(dir.resolve("a.drl"), "rule " + content);
            Files.writeString(dir.resolve("policy.yaml"), "x: 1\n");
        }
        try (FileSystem fs = FileSystems.newFileSystem(URI.create("jar:" + jar.toUri()), Map.of())) {
            Path out = ShippedRules.unpack(fs.getPath(ShippedRules.RESOURCE));
            assertTrue(Files.isDirectory(out));
            return out;
        }
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
