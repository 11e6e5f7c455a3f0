package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.Main;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code arbiter run --kubeconfig ...} as a user runs it: connects, schedules, and stops cleanly. */
@EnableKubernetesMockClient(crud = true)
class RunCommandEndToEndTest {
    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir
    Path dir;

    @Test
    void runBindsAPodOfItsSchedulerNameAndStopsWithExitCodeZero() throws Exception {
        try (LiveFixture fx = new LiveFixture(server, client)) {
            fx.create(node("node-1", 8));
            fx.create(pod("team", "job", "batch", 2, null));
            Path kubeconfig = fx.writeKubeconfig(dir.resolve("kubeconfig"));
            StringWriter err = new StringWriter();
            AtomicInteger exit = new AtomicInteger(-1);
            Thread run = new Thread(() -> exit.set(Main.run(new String[] {"run", "--kubeconfig", kubeconfig.toString(),
                    "--scheduler-name", "batch", "--rules", "rules", "--period", "200ms", "--metrics-port", "0"},
                    new PrintWriter(new StringWriter()), new PrintWriter(err, true))), "arbiter-run");
            run.start();

            await("bound by arbiter run", () -> "node-1".equals(fx.nodeOf("team/job")), LiveFixture.WAIT.multipliedBy(2));
            // Interrupt only once nothing more is to be written: the mock API server stalls for 30 s when a watch
            // closes while an event is on its way (see LiveFixture#close), and then fails to shut down.
            await("the default Queue counts the running job", () -> {
                VolcanoQueue q = fx.queue("default");
                return q != null && q.getStatus() != null && Integer.valueOf(1).equals(q.getStatus().running);
            });
            run.interrupt();
            run.join(30_000);

            assertEquals(0, exit.get(), err.toString());
            assertTrue(err.toString().contains("arbiter: scheduling pods of [batch]"), err.toString());
        }
    }
}
