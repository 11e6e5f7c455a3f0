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
     * with ".") below it are ignored. A file named explicitly is read whatever its extension.
     *
     * @throws ManifestException on a missing path ({@code <path>: no such file or directory}), unreadable file or
     *     invalid manifest
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
        if (Files.isDirectory(path)) {
            List<Path> files = yamlFilesUnder(path);
            if (files.isEmpty()) collector.notice(path + ": no *.yaml or *.yml files");
            files.forEach(this::addFile);
        } else {
            addFile(path);
        }
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

    private static List<Path> yamlFilesUnder(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> !isHiddenBelow(dir, p))
                    .filter(p -> Files.isRegularFile(p) && isYaml(p))
                    .sorted()
                    .toList();
        } catch (IOException | UncheckedIOException e) {
            throw new ManifestException(dir + ": cannot read directory: " + e.getMessage(), e);
        }
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
