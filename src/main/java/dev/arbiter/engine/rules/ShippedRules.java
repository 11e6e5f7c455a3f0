package dev.arbiter.engine.rules;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The shipped policy as the jar carries it ({@code arbiter/rules/} on the class path, built from the repository's
 * {@code rules/}), unpacked into a folder of its own under the temporary directory the first time it is needed: the
 * folder's name is a hash of the files, so each release unpacks once, and two releases never share a folder. Used when
 * neither {@code $ARBITER_HOME/rules} nor {@code ./rules} is there ({@link RuleBook#shippedFolder}).
 */
final class ShippedRules {
    static final String RESOURCE = "arbiter/rules";

    private ShippedRules() {}

    private static Path unpacked;

    /** The folder holding the jar's shipped policy, or null when the class path carries none. */
    static synchronized Path folder() {
        if (unpacked != null) return unpacked;
        URL marker = ShippedRules.class.getClassLoader().getResource(RESOURCE + "/policy.yaml");
        if (marker == null) return null;
        try {
            URI uri = marker.toURI();
            if ("file".equals(uri.getScheme())) return unpacked = Path.of(uri).getParent();
            FileSystem fs;
            try {
                fs = FileSystems.newFileSystem(uri, Map.of());
            } catch (FileSystemAlreadyExistsException e) {
                fs = FileSystems.getFileSystem(uri);
            }
            return unpacked = unpack(fs.getPath(RESOURCE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack the shipped policy from the jar: " + e.getMessage(), e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Path unpack(Path source) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(source)) {
            s.filter(Files::isRegularFile).sorted().forEach(files::add);
        }
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        for (Path f : files) {
            digest.update(source.relativize(f).toString().getBytes(StandardCharsets.UTF_8));
            digest.update(Files.readAllBytes(f));
        }
        String hash = HexFormat.of().formatHex(digest.digest()).substring(0, 16);
        Path target = Path.of(System.getProperty("java.io.tmpdir"), "arbiter-shipped-rules-" + hash);
        if (Files.isRegularFile(target.resolve("policy.yaml"))) return target;
        // Unpacked beside the target and moved into place whole, so a concurrent start never reads half a policy.
        Path work = Files.createTempDirectory(target.getParent(), "arbiter-shipped-rules-");
        for (Path f : files) {
            Path out = work.resolve(source.relativize(f).toString());
            Files.createDirectories(out.getParent());
            try (InputStream in = Files.newInputStream(f)) {
                Files.copy(in, out);
            }
        }
        try {
            Files.move(work, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            if (!Files.isRegularFile(target.resolve("policy.yaml"))) throw e;
            // another process unpacked the same release first
        }
        return target;
    }
}
