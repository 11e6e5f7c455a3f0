package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.pod;
import static dev.arbiter.manifest.TestManifests.podGroup;
import static dev.arbiter.manifest.TestManifests.queue;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayName("The bundled seed scenario")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class SeedScenarioTest {
    private static final Path SEED = Path.of("deploy/examples/seed");
    private static final Resources GPU_POD = Resources.of("cpu", 16, "memory", "128Gi", "mars-tech.com/gpu", 8, "pods", 1);
    private static Manifests seed;

    @BeforeAll
    static void load() {
        seed = ManifestLoader.load(List.of(SEED));
    }

    @Test
    void loads_four_nodes_with_eight_gpus_each() {
        assertEquals(List.of("node-1", "node-2", "node-3", "node-4"), seed.nodes().stream().map(NodeSpec::name).toList());
        Resources expected = Resources.of("cpu", 96, "memory", "768Gi", "pods", 110, "mars-tech.com/gpu", 8);
        seed.nodes().forEach(n -> assertEquals(expected, n.allocatable(), n.name()));
    }

    @Test
    void loads_six_pods_four_of_tenant_b_and_two_of_tenant_a() {
        assertEquals(List.of("b01/tenantb-heavy-training-master-0", "b01/tenantb-heavy-training-worker-0",
                        "b01/tenantb-heavy-training-worker-1", "b01/tenantb-heavy-training-worker-2",
                        "a01/qwen2-72b-unified-0", "a01/qwen2-72b-unified-0-1"),
                seed.pods().stream().map(PodSpec::key).toList());
        seed.pods().forEach(p -> assertAll(p.name(),
                () -> assertEquals(GPU_POD, p.requests()),
                () -> assertEquals("volcano", p.schedulerName()),
                () -> assertEquals("Pending", p.phase())));
    }

    @Test
    void tenant_b_training_is_an_elastic_gang_of_at_least_one_in_namespace_b01_present_from_cycle_zero() {
        PodGroupSpec training = podGroup(seed, "b01/tenantb-heavy-training");
        assertAll(() -> assertEquals(1, training.minMember()),
                () -> assertEquals("tenantb", training.queue()),
                () -> assertEquals("p2-regular", training.priorityClassName()),
                () -> assertEquals(0, training.arrivalCycle()));
        PodSpec master = pod(seed, "b01/tenantb-heavy-training-master-0");
        assertAll(() -> assertEquals("tenantb-heavy-training", master.groupName()),
                () -> assertTrue(master.isLeader()),
                () -> assertEquals("p2-regular", master.priorityClassName()));
    }

    @Test
    void tenant_a_inference_is_a_gang_of_two_critical_pods_whose_pod_group_names_no_class_arriving_at_cycle_61() {
        PodGroupSpec serving = podGroup(seed, "a01/qwen2-72b-unified-pg");
        assertAll(() -> assertEquals(2, serving.minMember()),
                () -> assertEquals("tenanta", serving.queue()),
                () -> assertEquals(null, serving.priorityClassName(), "as the seed article writes it"),
                () -> assertEquals(61, serving.arrivalCycle()));
        for (String name : List.of("a01/qwen2-72b-unified-0", "a01/qwen2-72b-unified-0-1")) {
            PodSpec p = pod(seed, name);
            assertAll(name, () -> assertEquals("qwen2-72b-unified-pg", p.groupName()),
                    () -> assertEquals("p0-critical", p.priorityClassName()),
                    () -> assertEquals(61, p.arrivalCycle()));
        }
        assertTrue(pod(seed, "a01/qwen2-72b-unified-0").isLeader());
        assertEquals(2, seed.podGroups().size());
    }

    @Test
    void has_the_two_tenant_queues_and_the_added_default_queue() {
        assertEquals(List.of("default", "tenanta", "tenantb"), seed.queues().stream().map(QueueSpec::name).toList());
        for (String name : List.of("tenanta", "tenantb")) {
            QueueSpec q = queue(seed, name);
            assertAll(name, () -> assertEquals(1, q.weight()), () -> assertTrue(q.reclaimable()));
        }
    }

    @Test
    void has_three_priority_classes_with_p2_regular_as_global_default() {
        assertEquals(List.of(new PriorityClassSpec("p0-critical", 1_000_000, false, "PreemptLowerPriority"),
                        new PriorityClassSpec("p1-high", 10_000, false, "PreemptLowerPriority"),
                        new PriorityClassSpec("p2-regular", 100, true, "PreemptLowerPriority")),
                seed.priorityClasses());
    }

    @Test
    void creates_tenant_b_job_before_tenant_a_service_and_skips_nothing() {
        long training = podGroup(seed, "b01/tenantb-heavy-training").creationOrder();
        long serving = podGroup(seed, "a01/qwen2-72b-unified-pg").creationOrder();
        assertTrue(training < serving, training + " < " + serving);
        assertEquals(List.of(), seed.notices());
    }
}
