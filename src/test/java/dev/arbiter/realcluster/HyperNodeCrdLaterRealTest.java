package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.live.LiveScheduler;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A cluster without the HyperNode CRD (Volcano's network topology): Arbiter runs without HyperNodes, healthy, and
 * when the CRD is installed while it runs, it picks the HyperNodes up without a restart.
 */
class HyperNodeCrdLaterRealTest extends RealClusterTest {
    static final String CRD = "hypernodes.topology.volcano.sh";

    @Test
    void theCrdAbsentThenInstalledWhileRunning() throws Exception {
        cluster.kubectl("delete", "crd", CRD, "--wait=true");
        closeAfter(() -> applyFiles(Path.of("deploy/crds/" + CRD + ".yaml")));
        cluster.namespace("hn");
        node("hn-1", 8, 0);
        LiveScheduler s = runningScheduler(config("arbiter-test").withPeriod(Duration.ofMillis(500))
                .withHyperNodeReprobe(Duration.ofSeconds(1)));
        await("told there are no HyperNodes", () -> s.cache().hyperNodesAbsent() != null);
        assertTrue(s.cache().hyperNodesAbsent().contains("not installed (404)"), s.cache().hyperNodesAbsent());
        apply(pod("hn", "before", null, "arbiter", 0, null));
        await("schedules without them", () -> nodeOf("hn", "before") != null);
        assertTrue(s.isHealthy());

        applyFiles(Path.of("deploy/crds/" + CRD + ".yaml"));
        cluster.kubectl("wait", "--for", "condition=Established", "--timeout", "60s", "crd/" + CRD);
        apply("""
                apiVersion: topology.volcano.sh/v1alpha1
                kind: HyperNode
                metadata: {name: rack-1}
                spec:
                  tier: 1
                  members:
                    - type: Node
                      selector: {exactMatch: {name: hn-1}}
                """);
        await("the HyperNodes are read", () -> s.cache().hyperNodesAbsent() == null
                && s.cache().snapshot().hyperNodes().stream().anyMatch(h -> h.name().equals("rack-1")));
        apply(pod("hn", "after", null, "arbiter", 0, null));
        await("schedules with them", () -> nodeOf("hn", "after") != null);
        assertTrue(s.isHealthy());
    }
}
