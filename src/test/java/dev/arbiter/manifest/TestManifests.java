package dev.arbiter.manifest;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.QueueSpec;
import java.util.List;

/** Small helpers shared by the manifest tests. */
final class TestManifests {
    static final String SOURCE = "test.yaml";

    private TestManifests() {}

    static Manifests parse(String yaml) {
        return ManifestLoader.parse(yaml, SOURCE);
    }

    static String errorOf(String yaml) {
        return assertThrows(ManifestException.class, () -> parse(yaml)).getMessage();
    }

    static PodSpec pod(Manifests m, String namespacedName) {
        return m.pods().stream().filter(p -> p.key().equals(namespacedName)).findFirst()
                .orElseGet(() -> fail("no pod " + namespacedName + " in " + names(m.pods().stream().map(PodSpec::key).toList())));
    }

    static PodGroupSpec podGroup(Manifests m, String namespacedName) {
        return m.podGroups().stream().filter(g -> g.key().equals(namespacedName)).findFirst()
                .orElseGet(() -> fail("no PodGroup " + namespacedName));
    }

    static QueueSpec queue(Manifests m, String name) {
        return m.queues().stream().filter(q -> q.name().equals(name)).findFirst()
                .orElseGet(() -> fail("no queue " + name));
    }

    static List<String> podNames(Manifests m) {
        return m.pods().stream().map(PodSpec::name).toList();
    }

    private static String names(List<String> names) {
        return String.join(", ", names);
    }
}
