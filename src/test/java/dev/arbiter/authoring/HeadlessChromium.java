package dev.arbiter.authoring;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Headless Chromium for tests: renders a local HTML file to a PNG, or runs its scripts and returns the DOM they left.
 * Found as {@code $ARBITER_CHROMIUM}, else {@code chromium}, {@code chromium-browser}, {@code google-chrome} or
 * {@code google-chrome-stable} on the PATH (Debian: {@code apt-get install chromium}). Every run gets a fresh profile,
 * no network services of the browser's own, and a budget of virtual time in which the page's scripts finish.
 */
final class HeadlessChromium {
    private static final List<String> NAMES = List.of("chromium", "chromium-browser", "google-chrome", "google-chrome-stable");
    private final Path binary;
    private final Path scratch;

    private HeadlessChromium(Path binary, Path scratch) {
        this.binary = binary;
        this.scratch = scratch;
    }

    /** The browser, or empty when none is installed; {@code scratch} holds profiles and the browser's own output. */
    static Optional<HeadlessChromium> find(Path scratch) {
        String configured = System.getenv("ARBITER_CHROMIUM");
        if (configured != null && !configured.isBlank()) return Optional.of(new HeadlessChromium(Path.of(configured), scratch));
        String path = System.getenv("PATH");
        if (path == null) return Optional.empty();
        for (String name : NAMES) {
            for (String dir : path.split(File.pathSeparator)) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) return Optional.of(new HeadlessChromium(p, scratch));
            }
        }
        return Optional.empty();
    }

    /** Renders {@code html} in a window of {@code width} × {@code height} CSS pixels to {@code png}. */
    void screenshot(Path html, Path png, int width, int height) throws IOException, InterruptedException {
        Files.createDirectories(png.toAbsolutePath().getParent());
        Files.deleteIfExists(png);
        run(List.of("--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height, "--hide-scrollbars"), html);
        if (!Files.isRegularFile(png)) throw new IllegalStateException("Chromium wrote no screenshot to " + png);
    }

    /** The DOM of {@code html} once its scripts have run, serialized. */
    String dumpDom(Path html) throws IOException, InterruptedException {
        return run(List.of("--dump-dom", "--window-size=1400,1000"), html);
    }

    private String run(List<String> mode, Path html) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory(Files.createDirectories(scratch), "profile-");
        Path stdout = Files.createTempFile(scratch, "chromium-", ".out");
        Path stderr = Files.createTempFile(scratch, "chromium-", ".err");
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--user-data-dir=" + profile, "--virtual-time-budget=10000"));
        cmd.addAll(mode);
        cmd.add(html.toAbsolutePath().toUri().toString());
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
            if (!p.waitFor(3, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("Chromium did not finish " + html + " within 3 minutes");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("Chromium exited " + p.exitValue() + " on " + html + ": " + Files.readString(stderr));
            }
            return Files.readString(stdout);
        } finally {
            deleteTree(profile);
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
