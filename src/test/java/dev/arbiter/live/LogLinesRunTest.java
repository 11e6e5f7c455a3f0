package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static dev.arbiter.live.LiveFixture.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import dev.arbiter.cli.Main;
import dev.arbiter.model.PodSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 38, item 4: {@code arbiter run} against the mock API server, its log read from stderr as a log shipper reads
 * it. With {@code --log-format json} every line is one flat JSON object (time, level, logger, thread, message, and the
 * cycle, pod, PodGroup, node and rule as top-level fields where the line names them); as text, the same lines with a
 * timestamp and a level, the fields after the message as key=value. stderr here is a buffered stream that is never
 * flushed but by Logback: each line arrives because it was flushed as written.
 */
@EnableKubernetesMockClient(crud = true)
class LogLinesRunTest {
    private static final String TIME = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";

    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir
    Path dir;

    @AfterEach
    void backToTheDefault() throws Exception {
        System.clearProperty("arbiter.log.format");
        System.clearProperty("arbiter.log.level");
        configure();
    }

    private static void configure() throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    /**
     * Runs {@code arbiter run} with {@code --log-format format} until a PodGroup's pod has bound after its first binding
     * failed (422), and a pod with a near-miss annotation too; returns the stderr lines.
     */
    private List<String> run(String format) throws Exception {
        System.setProperty("arbiter.log.format", format);
        System.setProperty("arbiter.log.level", "info");
        configure();
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        // Not flushed by itself: what reaches `captured` was flushed by the appender.
        System.setErr(new PrintStream(new BufferedOutputStream(captured, 1 << 16), false, StandardCharsets.UTF_8));
        try (LiveFixture fx = new LiveFixture(server, client)) {
            fx.create(node("node-1", 8));
            fx.create(podGroup("team", "gang", "default", 1));
            fx.create(pod("team", "g-1", "batch", 1, "gang"));
            PodSpec lone = pod("team", "lone", "batch", 1, null);
            fx.create(new PodSpec(lone.namespace(), lone.name(), lone.schedulerName(), null, "Pending", null, null, null,
                    lone.requests(), Map.of(), List.of(), Map.of(), Map.of("scheduling.volcano.sh/queue", "default"), 0, 0, false));
            fx.failBinding("team/g-1", 422);
            Path kubeconfig = fx.writeKubeconfig(dir.resolve("kubeconfig"));
            Thread run = new Thread(() -> Main.run(new String[] {"run", "--kubeconfig", kubeconfig.toString(),
                    "--scheduler-name", "batch", "--rules", "rules", "--period", "200ms", "--metrics-port", "0",
                    "--log-format", format}, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter(), true)),
                    "arbiter-run");
            run.start();
            try {
                await("the gang bound after its failed binding", () -> "node-1".equals(fx.nodeOf("team/g-1"))
                        && "node-1".equals(fx.nodeOf("team/lone")),
                        LiveFixture.WAIT.multipliedBy(3));
                await("the default Queue counts the running jobs", () -> {
                    VolcanoQueue q = fx.queue("default");
                    return q != null && q.getStatus() != null && Integer.valueOf(2).equals(q.getStatus().running);
                });
                await("the binding failure logged", () -> captured.toString(StandardCharsets.UTF_8).contains("binding team/g-1"));
            } catch (AssertionError e) {
                System.err.flush();
                throw new AssertionError(e.getMessage() + "; the log:\n" + captured.toString(StandardCharsets.UTF_8), e);
            } finally {
                run.interrupt();
                run.join(30_000);
            }
        } finally {
            System.setErr(stderr);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void jsonLinesAreFlatObjectsWithTheCycleObjectsAndRuleAsFields() throws Exception {
        List<String> lines = run("json");
        ObjectMapper mapper = new ObjectMapper();
        List<JsonNode> objects = new ArrayList<>();
        for (String line : lines) {
            JsonNode o = mapper.readTree(line); // every line parses, alone
            assertTrue(o.isObject(), line);
            assertTrue(o.path("time").asText().matches(TIME), line);
            assertTrue(List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR").contains(o.path("level").asText()), line);
            assertFalse(o.path("logger").asText().isEmpty(), line);
            assertFalse(o.path("thread").asText().isEmpty(), line);
            assertTrue(o.has("message"), line);
            assertFalse(o.has("mdc") || o.has("kvpList") || o.has("formattedMessage"), "flat, not Logback's shape: " + line);
            o.properties().forEach(e -> assertTrue(e.getValue().isValueNode(), "no nested field: " + line));
            objects.add(o);
        }
        JsonNode started = find(objects, o -> o.path("message").asText().startsWith("arbiter: scheduling pods of [batch]"));
        assertEquals("INFO", started.path("level").asText());

        JsonNode failed = find(objects, o -> o.path("message").asText().startsWith("binding team/g-1 to node-1 failed"));
        assertEquals("WARN", failed.path("level").asText());
        assertEquals("dev.arbiter.live.Binder", failed.path("logger").asText());
        assertEquals("team/g-1", failed.path("pod").asText());
        assertEquals("node-1", failed.path("node").asText());
        assertEquals("team/gang", failed.path("podgroup").asText());
        assertTrue(failed.path("cycle").isIntegralNumber() && failed.path("cycle").asInt() >= 1, failed.toString());
        assertFalse(failed.path("rule").asText().isEmpty(), failed.toString());

        JsonNode nearMiss = find(objects, o -> o.path("message").asText().contains("metadata.annotations[scheduling.volcano.sh/queue]"));
        assertEquals("team/lone", nearMiss.path("pod").asText());

        // A cycle's summary carries its number as a field, a number, the same as in its words.
        JsonNode cycle = find(objects, o -> o.path("message").asText().matches("cycle \\d+: .* pending pods placed.*"));
        String n = cycle.path("message").asText().replaceAll("^cycle (\\d+):.*", "$1");
        assertTrue(cycle.path("cycle").isIntegralNumber(), cycle.toString());
        assertEquals(Integer.parseInt(n), cycle.path("cycle").asInt(), cycle.toString());
    }

    @Test
    void textLinesHaveATimestampALevelAndTheSameFieldsAsKeyValue() throws Exception {
        List<String> lines = run("text");
        for (String line : lines) assertTrue(line.matches(TIME + " (TRACE|DEBUG|INFO |WARN |ERROR) \\S+ - .*"), line);
        String failed = lines.stream().filter(l -> l.contains("binding team/g-1 to node-1 failed")).findFirst().orElse(null);
        assertNotNull(failed, String.join("\n", lines));
        assertTrue(failed.matches(TIME + " WARN  Binder - binding team/g-1 to node-1 failed: .* cycle=\\d+ podgroup=team/gang"
                + " pod=team/g-1 node=node-1 rule=\\S.*"), failed);
        assertTrue(lines.stream().anyMatch(l -> l.matches(TIME + " INFO  SchedulingLoop - cycle (\\d+): .* cycle=\\1")),
                String.join("\n", lines));
    }

    private static JsonNode find(List<JsonNode> objects, Predicate<JsonNode> which) {
        return objects.stream().filter(which).findFirst()
                .orElseThrow(() -> new AssertionError("no such line in " + objects));
    }
}
