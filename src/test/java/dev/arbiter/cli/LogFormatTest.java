package dev.arbiter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Issue 38, item 4: every log line has a timestamp and a level, as text or as one JSON object a line with the cycle,
 * the object and the rule as fields ({@code logback.xml}, chosen by {@code --log-format}).
 */
class LogFormatTest {
    private static final Logger LOG = LoggerFactory.getLogger("dev.arbiter.live.Evictor");

    @AfterEach
    void backToTheDefault() throws Exception {
        System.clearProperty(LogLevel.FORMAT_PROPERTY);
        configure();
    }

    private static void configure() throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    /** The lines logged by {@code body} in the given format, from stderr (where the appenders write, line by line). */
    private static List<String> logged(String format, Runnable body) throws Exception {
        System.setProperty(LogLevel.FORMAT_PROPERTY, format);
        configure();
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setErr(stderr);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private static void refusal() {
        try (MDC.MDCCloseable ignored = MDC.putCloseable("cycle", "7")) {
            LOG.atWarn().addKeyValue("pod", "b01/worker-1").addKeyValue("rule", "reclaim: a queue below its share")
                    .log("eviction of {} refused", "b01/worker-1");
        }
    }

    @Test
    void aTextLineHasTimestampLevelLoggerMessageAndFields() throws Exception {
        List<String> lines = logged("text", LogFormatTest::refusal);
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z WARN  Evictor - eviction of b01/worker-1 refused"
                + " cycle=7 pod=b01/worker-1 rule=reclaim: a queue below its share"), lines.get(0));
    }

    @Test
    void aTextLineWithoutFieldsEndsWithTheMessage() throws Exception {
        List<String> lines = logged("text", () -> LOG.warn("plain"));
        assertTrue(lines.get(0).matches("\\S+Z WARN  Evictor - plain"), lines.get(0));
    }

    @Test
    void aJsonLineIsOneFlatObjectWithTheCycleObjectAndRuleAsFields() throws Exception {
        List<String> lines = logged("json", LogFormatTest::refusal);
        assertEquals(1, lines.size(), "one object a line: " + lines);
        JsonNode line = new ObjectMapper().readTree(lines.get(0));
        assertTrue(line.get("time").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"), lines.get(0));
        assertEquals("WARN", line.get("level").asText());
        assertEquals("dev.arbiter.live.Evictor", line.get("logger").asText());
        assertEquals(Thread.currentThread().getName(), line.get("thread").asText());
        assertEquals("eviction of b01/worker-1 refused", line.get("message").asText());
        assertTrue(line.get("cycle").isIntegralNumber(), lines.get(0));
        assertEquals(7, line.get("cycle").asInt());
        assertEquals("b01/worker-1", line.get("pod").asText());
        assertEquals("reclaim: a queue below its share", line.get("rule").asText());
        assertEquals(List.of("time", "level", "logger", "thread", "message", "cycle", "pod", "rule"),
                line.propertyNames().stream().toList(), "flat, in this order, nothing else: " + lines.get(0));
    }

    @Test
    void aJsonLinesExceptionIsOneStringFieldAndAFieldNeverReplacesTheLinesOwn() throws Exception {
        List<String> lines = logged("json", () -> LOG.atError().addKeyValue("message", "not this").addKeyValue("node", "n1")
                .addKeyValue("count", 3).setCause(new IllegalStateException("boom")).log("it failed"));
        assertEquals(1, lines.size(), "the stack trace stays inside the one line: " + lines);
        JsonNode line = new ObjectMapper().readTree(lines.get(0));
        assertEquals("it failed", line.get("message").asText());
        assertEquals("n1", line.get("node").asText());
        assertEquals(3, line.get("count").asInt());
        assertTrue(line.get("count").isIntegralNumber(), lines.get(0));
        assertTrue(line.get("exception").isTextual(), lines.get(0));
        assertTrue(line.get("exception").asText().startsWith("java.lang.IllegalStateException: boom"), lines.get(0));
        assertTrue(line.get("exception").asText().contains("at dev.arbiter.cli.LogFormatTest"), lines.get(0));
    }

    @Test
    void configuringEitherFormatPrintsNothingOnStdout() throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            for (String format : new String[] {"text", "json"}) {
                System.setProperty(LogLevel.FORMAT_PROPERTY, format);
                configure();
            }
        } finally {
            System.setOut(stdout);
        }
        assertEquals("", captured.toString(StandardCharsets.UTF_8), "Logback's status lines would mix into simulate's output");
    }

    @Test
    void runRefusesAnUnknownLogFormat() {
        CliRunner r = CliRunner.run("run", "--log-format", "xml");
        assertEquals(Main.INVALID_INPUT, r.exit(), r.err());
        assertTrue(r.err().contains("--log-format must be text or json, got xml"), r.err());
    }

    @Test
    void theFormatAndLevelComeFromTheArgumentsBeforeTheFirstLogger() {
        String level = System.getProperty(LogLevel.PROPERTY);
        try {
            System.clearProperty(LogLevel.PROPERTY);
            LogLevel.configure(new String[] {"run", "--log-format=json"});
            assertEquals("json", System.getProperty(LogLevel.FORMAT_PROPERTY));
            assertEquals("info", System.getProperty(LogLevel.PROPERTY), "run logs at INFO by default");
            System.clearProperty(LogLevel.FORMAT_PROPERTY);
            LogLevel.configure(new String[] {"run", "--log-format", "yaml"});
            assertEquals(null, System.getProperty(LogLevel.FORMAT_PROPERTY), "an unknown format is left to run to refuse");
        } finally {
            if (level == null) System.clearProperty(LogLevel.PROPERTY);
            else System.setProperty(LogLevel.PROPERTY, level);
        }
    }
}
