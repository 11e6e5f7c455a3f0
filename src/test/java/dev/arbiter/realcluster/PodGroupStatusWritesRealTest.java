package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.live.VolcanoPodGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * PodGroup status writes on the real API server, with both CRD shapes: Arbiter's copy (with a status subresource) and
 * Volcano's own, which declares none ({@code subresources: {}}; Volcano updates the whole object). Every status write
 * is one request (at most one 404 per run shows the subresource is missing), and another writer updating the same
 * PodGroups meanwhile (a controller's PUT on a resourceVersion it read) neither makes Arbiter's writes fail nor
 * leaves its status stale.
 */
class PodGroupStatusWritesRealTest extends RealClusterTest {
    static final String CRD = "podgroups.scheduling.volcano.sh";

    @Test
    void withVolcanosCrdShapeEachStatusWriteIsOneRequest() throws Exception {
        cluster.kubectl("patch", "crd", CRD, "--type=json", "-p", "[{\"op\":\"remove\",\"path\":\"/spec/versions/0/subresources\"}]");
        closeAfter(() -> applyFiles(Path.of("deploy/crds/" + CRD + ".yaml")));
        await("the CRD declares no status subresource", () -> admin.apiextensions().v1().customResourceDefinitions()
                .withName(CRD).get().getSpec().getVersions().get(0).getSubresources() == null);
        cluster.kubectl("wait", "--for", "condition=Established", "--timeout", "60s", "crd/" + CRD);
        cluster.awaitServing();
        runGangs("shape", 4);

        List<AuditLog.Request> writes = arbiterRequests().stream().filter(r -> "podgroups".equals(r.resource())
                && ("patch".equals(r.verb()) || "update".equals(r.verb()))).toList();
        long notFound = writes.stream().filter(r -> r.code() == 404).count();
        assertTrue(notFound <= 1, () -> "404s: " + writes);
        assertTrue(writes.stream().filter(r -> r.code() < 300).count() >= 4, () -> "writes: " + writes);
        int first404 = writes.stream().map(r -> r.code() == 404).toList().indexOf(true);
        if (first404 >= 0) {
            assertTrue(writes.subList(first404 + 1, writes.size()).stream().noneMatch(r -> "status".equals(r.subresource())),
                    () -> "/status asked again after its 404: " + writes);
        }
        assertEquals(List.of(), writes.stream().filter(r -> r.code() >= 400 && r.code() != 404).toList(), "refused writes");
    }

    @Test
    void anotherWriterUpdatingThePodGroupsDoesNotLeaveArbitersStatusStaleOrFailed() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger theirConflicts = new AtomicInteger();
        Thread other = new Thread(() -> {
            while (!stop.get()) {
                for (VolcanoPodGroup pg : admin.resources(VolcanoPodGroup.class).inNamespace("race").list().getItems()) {
                    try {
                        pg.getMetadata().setAnnotations(new java.util.HashMap<>(pg.getMetadata().getAnnotations() == null
                                ? java.util.Map.of() : pg.getMetadata().getAnnotations()));
                        pg.getMetadata().getAnnotations().put("example.com/touched", String.valueOf(System.nanoTime()));
                        admin.resources(VolcanoPodGroup.class).inNamespace("race").resource(pg).update();
                    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                        if (e.getCode() == 409) theirConflicts.incrementAndGet();
                    }
                }
            }
        }, "another-podgroup-writer");
        cluster.namespace("race");
        other.start();
        try {
            runGangs("race", 6);
        } finally {
            stop.set(true);
            other.join(10_000);
        }
        List<AuditLog.Request> writes = arbiterRequests().stream().filter(r -> "podgroups".equals(r.resource())
                && "patch".equals(r.verb())).toList();
        List<AuditLog.Request> failed = new ArrayList<>(writes.stream().filter(r -> r.code() >= 400).toList());
        // A write the server answered 409 counts only if no later write of that PodGroup succeeded.
        failed.removeIf(f -> f.code() == 409 && writes.stream().anyMatch(w -> w.name().equals(f.name()) && w.code() < 300
                && writes.indexOf(w) > writes.indexOf(f)));
        assertEquals(List.of(), failed, "Arbiter's status writes left failed");
        // Arbiter's patches carry no resourceVersion, so a writer in between cannot make them conflict (a stale one
        // would be answered 409), and they change only the status: the other writer's annotation stays.
        assertEquals(List.of(), writes.stream().filter(r -> r.code() == 409).toList(), "Arbiter's writes answered 409");
        for (VolcanoPodGroup pg : admin.resources(VolcanoPodGroup.class).inNamespace("race").list().getItems()) {
            assertTrue(pg.getMetadata().getAnnotations() != null && pg.getMetadata().getAnnotations().containsKey("example.com/touched"),
                    () -> pg.getMetadata().getName() + " lost the other writer's annotation");
        }
        System.out.println("the other writer met " + theirConflicts.get() + " conflicts; Arbiter wrote " + writes.size()
                + " times, " + writes.stream().filter(r -> r.code() == 409).count() + " answered 409");
    }

    /** {@code gangs} gangs of two, each with room: all must end Running with status running 2, as the server holds. */
    private void runGangs(String ns, int gangs) {
        cluster.namespace(ns);
        for (int i = 0; i < gangs; i++) node(ns + "-" + i, 16, 0);
        List<String> docs = new ArrayList<>(List.of(queue("q-" + ns, 1)));
        for (int g = 0; g < gangs; g++) {
            docs.add(podGroup(ns, "g" + g, "q-" + ns, 2));
            for (int m = 0; m < 2; m++) docs.add(pod(ns, "g" + g + "-" + m, "g" + g, "arbiter", 0, null));
        }
        apply(docs(docs));
        runningScheduler(config("arbiter-test").withPeriod(Duration.ofMillis(300)));
        await("every gang Running, 2 running, on the server", () -> admin.resources(VolcanoPodGroup.class).inNamespace(ns)
                .list().getItems().stream().filter(pg -> pg.getStatus() != null && "Running".equals(pg.getStatus().phase)
                        && Integer.valueOf(2).equals(pg.getStatus().running)).count() == gangs, Duration.ofSeconds(60));
    }
}
