package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The requests a leader-elected scheduler really sends while playing the seed story (informers, Lease, bind,
 * reclaim, status, events, the default Queue) all fall within {@link ApiPermissions}: the ClusterRole is enough.
 */
@EnableKubernetesMockClient(crud = true)
class CalledApisTest {
    private static final Pattern PATH = Pattern.compile(
            "/(?:api/v1|apis/([^/]+)/[^/]+)(?:/namespaces/[^/]+)?/([^/?]+)(?:/([^/?]+))?(?:/([^/?]+))?(\\?.*)?");

    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void everyCallTheSchedulerMakesIsGranted() throws Exception {
        try (LiveFixture fx = new LiveFixture(server, client)) {
            Manifests seed = ManifestLoader.load(List.of(Path.of("deploy/examples/seed")));
            seed.priorityClasses().forEach(fx::create);
            seed.queues().stream().filter(q -> !q.name().equals("default")).forEach(fx::create);
            seed.nodes().forEach(fx::create);
            seed.podGroups().stream().filter(g -> g.arrivalCycle() == 0).forEach(fx::create);
            seed.pods().stream().filter(p -> p.arrivalCycle() == 0).forEach(fx::create);
            drain();

            LiveScheduler s = fx.scheduler(LiveFixture.config("rbac").withLeaderElection("arbiter-system", "arbiter",
                    new LeaderElection.Timing(Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofMillis(200))));
            await("leading", s::isLeader);
            await("tenant B runs", () -> seed.pods().stream().filter(p -> p.arrivalCycle() == 0)
                    .allMatch(p -> fx.nodeOf(p.key()) != null));
            seed.podGroups().stream().filter(g -> g.arrivalCycle() > 0).forEach(fx::create);
            seed.pods().stream().filter(p -> p.arrivalCycle() > 0).forEach(fx::create);
            await("tenant A runs", () -> seed.pods().stream().filter(p -> p.arrivalCycle() > 0)
                    .allMatch(p -> fx.nodeOf(p.key()) != null));
        }

        Set<String> granted = new TreeSet<>();
        for (List<ApiPermissions.Rule> rules : List.of(ApiPermissions.CLUSTER, ApiPermissions.NAMESPACE)) {
            for (ApiPermissions.Rule r : rules) for (String v : r.verbs()) granted.add(r.group() + " " + r.resource() + " " + v);
        }
        Set<String> called = new TreeSet<>();
        RecordedRequest r;
        while ((r = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null) {
            if (LiveFixture.SCHEDULER_AGENT.equals(r.getHeader("User-Agent"))) called.add(permission(r));
        }
        assertTrue(called.containsAll(Set.of(" pods/binding create", " pods/eviction create", " events create",
                "coordination.k8s.io leases patch")), "the story exercised the writes: " + called);
        Set<String> ungranted = new TreeSet<>(called);
        ungranted.removeAll(granted);
        assertTrue(ungranted.isEmpty(), "called but not granted: " + ungranted);
    }

    private void drain() throws InterruptedException {
        while (server.takeRequest(10, TimeUnit.MILLISECONDS) != null) {
            // the test's own setup calls
        }
    }

    /** "group resource[/subresource] verb" of a request, e.g. " pods/binding create" or "scheduling.k8s.io priorityclasses watch". */
    private static String permission(RecordedRequest r) {
        Matcher m = PATH.matcher(r.getPath());
        if (!m.matches()) throw new AssertionError("unexpected path " + r.getPath());
        String group = m.group(1) == null ? "" : m.group(1);
        String resource = m.group(2);
        String name = m.group(3);
        String sub = m.group(4);
        String query = m.group(5) == null ? "" : m.group(5);
        String verb = switch (r.getMethod()) {
            case "GET" -> query.contains("watch=true") ? "watch" : name == null ? "list" : "get";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> "delete";
            default -> r.getMethod();
        };
        return group + " " + resource + (sub == null ? "" : "/" + sub) + " " + verb;
    }
}
