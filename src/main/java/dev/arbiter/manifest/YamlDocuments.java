package dev.arbiter.manifest;

import java.io.StringReader;
import java.util.Iterator;
import java.util.function.Consumer;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.reader.ReaderException;

/**
 * Splits YAML text into its documents as SnakeYAML node trees (which keep line numbers), skipping empty documents
 * and turning SnakeYAML's multi-line errors into one-line {@link ManifestException}s.
 */
final class YamlDocuments {
    /** Generous enough for a dump of a large cluster; SnakeYAML's default is 3 MB. */
    private static final int MAX_CODE_POINTS = 256 * 1024 * 1024;

    private YamlDocuments() {}

    /** Calls {@code action} with each non-empty document of {@code text}, in order. */
    static void forEach(String text, String source, Consumer<Node> action) {
        Iterator<Node> documents = yaml().composeAll(new StringReader(text)).iterator();
        Node document;
        while ((document = next(documents, text, source)) != null) {
            if (!isEmpty(document)) action.accept(document);
        }
    }

    private static Yaml yaml() {
        LoaderOptions options = new LoaderOptions();
        options.setCodePointLimit(MAX_CODE_POINTS);
        options.setMergeOnCompose(true);
        return new Yaml(options);
    }

    private static Node next(Iterator<Node> documents, String text, String source) {
        try {
            return documents.hasNext() ? documents.next() : null;
        } catch (MarkedYAMLException e) {
            throw new ManifestException(source + ":" + line(e) + ": invalid YAML: " + problem(e), e);
        } catch (ReaderException e) {
            throw new ManifestException(source + ":" + lineAt(text, e.getPosition()) + ": invalid YAML: "
                    + String.format("character U+%04X is not allowed", e.getCodePoint()), e);
        } catch (YAMLException e) {
            throw new ManifestException(source + ": invalid YAML: " + e.getMessage(), e);
        }
    }

    private static boolean isEmpty(Node document) {
        return document instanceof ScalarNode s && (Tag.NULL.equals(s.getTag()) || s.getValue().isBlank());
    }

    private static int line(MarkedYAMLException e) {
        Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
        return mark == null ? 1 : mark.getLine() + 1;
    }

    /** SnakeYAML's problem, with its context (e.g. "while scanning a quoted scalar") when it names one. */
    private static String problem(MarkedYAMLException e) {
        String problem = e.getProblem();
        String context = e.getContext();
        if (problem == null) return context == null ? "unreadable document" : context;
        if (context == null) return problem;
        Mark at = e.getContextMark();
        return problem + " (" + context + (at == null ? "" : " at line " + (at.getLine() + 1)) + ")";
    }

    private static int lineAt(String text, int codePointIndex) {
        int line = 1;
        int end = text.offsetByCodePoints(0, Math.min(codePointIndex, text.codePointCount(0, text.length())));
        for (int i = 0; i < end; i++) if (text.charAt(i) == '\n') line++;
        return line;
    }
}
