package dev.arbiter.manifest;

import dev.arbiter.model.Manifests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Reads Kubernetes manifests (multi-document YAML) into the scheduler's model.
 *
 * <p>Understood kinds: {@code v1} Node and Pod, {@code scheduling.k8s.io/v1} PriorityClass,
 * {@code scheduling.volcano.sh/v1beta1} Queue and PodGroup, {@code topology.volcano.sh/v1alpha1} HyperNode, {@code kubeflow.org/v1} PyTorchJob and
 * {@code leaderworkerset.x-k8s.io/v1} LeaderWorkerSet (both expanded into the pods and PodGroups their controllers
 * would create), and {@code List}/{@code <Kind>List} wrappers. Other kinds are skipped with a one-line notice in
 * {@link Manifests#notices()}. Empty documents are ignored. A {@code default} queue is added when none is defined.
 *
 * <p>Objects keep load order, and pods and PodGroups get a {@code creationOrder} that counts every object read, in
 * that order. Any object may carry the {@value #ARRIVAL_CYCLE_ANNOTATION} annotation (a non-negative integer,
 * default 0): the simulation cycle at which it appears. Invalid input fails fast with a one-line
 * {@link ManifestException} naming file, line, object and field.
 *
 * <p>Use the static {@link #load} / {@link #parse} for one-shot reads, or an instance to combine several files and
 * texts into one set of manifests (with duplicates detected across all of them). Instances are not thread-safe.
 */
public final class ManifestLoader {
    /** Annotation giving the simulation cycle at which an object arrives, e.g. {@code "3"}. */
    public static final String ARRIVAL_CYCLE_ANNOTATION = "simulation.arbiter.dev/arrival-cycle";

    private final ManifestCollector collector = new ManifestCollector();
    private final ObjectReader reader = new ObjectReader(collector);

    /** An empty loader; add files or texts, then call {@link #manifests()}. */
    public ManifestLoader() {}

    /**
     * Reads the given files and directories in order. A directory is walked recursively for {@code *.yaml} and
     * {@code *.yml} files, sorted by path so the result is deterministic; hidden files and directories (name starting
     * with ".") below it are ignored, and the other files skipped, but for READMEs, are named in one notice per kind of
     * file (extension, or "binary"), with a count. A file named explicitly is read whatever its extension.
     *
     * @throws ManifestException on a missing path ({@code <path>: no such file or directory}), a path that holds no
     *     Kubernetes object (no document with apiVersion and kind), an unreadable file or an invalid manifest
     */
    public static Manifests load(List<Path> paths) {
        ManifestLoader loader = new ManifestLoader();
        paths.forEach(loader::addPath);
        return loader.manifests();
    }

    /**
     * Reads YAML text, e.g. a Gherkin doc string; {@code sourceName} stands for the file name in messages.
     *
     * @throws ManifestException on invalid input
     */
    public static Manifests parse(String yamlText, String sourceName) {
        return new ManifestLoader().addText(yamlText, sourceName).manifests();
    }

    /** Adds a file, or every YAML file under a directory (see {@link #load}); returns this loader. */
    public ManifestLoader addPath(Path path) {
        int before = reader.objectsRead();
        boolean folder = Files.isDirectory(path);
        if (folder) {
            Map<String, Integer> skipped = new TreeMap<>();
            List<Path> files = yamlFilesUnder(path, skipped);
            files.forEach(this::addFile);
            skipped.forEach((kind, n) -> collector.notice(Mistakes.skippedFiles(path, kind, n)));
        } else {
            addFile(path);
        }
        if (reader.objectsRead() == before) throw Mistakes.noObject(path, folder);
        return this;
    }

    /** Adds the objects in {@code yamlText}, named {@code sourceName} in messages; returns this loader. */
    public ManifestLoader addText(String yamlText, String sourceName) {
        YamlDocuments.forEach(yamlText, sourceName, document -> reader.readDocument(document, sourceName));
        return this;
    }

    /** Everything added so far, with the {@code default} queue added when no manifest defined one. */
    public Manifests manifests() {
        return collector.manifests();
    }

    private void addFile(Path file) {
        if (!Files.exists(file)) throw new ManifestException(file + ": no such file or directory");
        String text;
        try {
            text = dev.arbiter.model.TextFiles.readUtf8(file);
        } catch (CharacterCodingException e) {
            throw new ManifestException(file + ": cannot read: not UTF-8 text", e);
        } catch (AccessDeniedException e) {
            throw new ManifestException(file + ": cannot read: permission denied", e);
        } catch (IOException e) {
            throw new ManifestException(file + ": cannot read: " + e.getMessage(), e);
        }
        addText(text, file.toString());
    }

    /** The YAML files under {@code dir}, sorted; counts the other (not hidden) files in {@code skipped} by kind. */
    private static List<Path> yamlFilesUnder(Path dir, Map<String, Integer> skipped) {
        try (Stream<Path> walk = Files.walk(dir)) {
            List<Path> files = walk.filter(p -> !isHiddenBelow(dir, p)).filter(Files::isRegularFile).sorted().toList();
            List<Path> yaml = new java.util.ArrayList<>();
            for (Path f : files) {
                if (isYaml(f)) yaml.add(f);
                else if (!isReadme(f)) skipped.merge(kindOf(f), 1, Integer::sum);
            }
            return yaml;
        } catch (IOException | UncheckedIOException e) {
            throw new ManifestException(dir + ": cannot read directory: " + e.getMessage(), e);
        }
    }

    /** {@code binary} for a file with a NUL byte in its first 8 KiB, else its extension ({@code .json}), or "". */
    private static String kindOf(Path file) {
        try (java.io.InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(8192);
            for (byte b : head) if (b == 0) return "binary";
        } catch (IOException e) {
            // named by its extension
        }
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot <= 0 ? "" : name.substring(dot).toLowerCase(Locale.ROOT);
    }

    /** A folder's README (any extension): its documentation, skipped without a notice. */
    private static boolean isReadme(Path file) {
        return file.getFileName().toString().toLowerCase(Locale.ROOT).startsWith("readme");
    }

    private static boolean isHiddenBelow(Path dir, Path p) {
        for (Path part : dir.relativize(p)) {
            if (part.toString().startsWith(".")) return true;
        }
        return false;
    }

    private static boolean isYaml(Path p) {
        String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".yaml") || name.endsWith(".yml");
    }
}
