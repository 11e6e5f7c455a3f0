package dev.arbiter.cli;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.event.KeyValuePair;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code --log-format json}: one flat JSON object a line, e.g.
 * <pre>{"time":"2026-12-04T21:33:49.123Z","level":"WARN","logger":"dev.arbiter.live.Evictor","thread":"arbiter-binder-3",
 * "message":"eviction of b01/w-1 for a01/pg refused (PodDisruptionBudget): ...","cycle":7,"pod":"b01/w-1",
 * "podgroup":"a01/pg","rule":"reclaim: a queue below its share"}</pre>
 * {@code time} (UTC, milliseconds, the text form's), {@code level}, {@code logger}, {@code thread} and {@code message}
 * first; then the line's fields, top-level: the thread's (MDC: the {@code cycle} while a cycle runs) and the line's own
 * key-value pairs ({@code pod}, {@code podgroup}, {@code queue}, {@code node}, {@code rule}, {@code generation},
 * {@code informer}, {@code lease}, ...). A field never replaces one of the five above; a number stays a number, and
 * {@code cycle} is one whichever way it came. A line with an exception carries it as one string field,
 * {@code exception} (its stack trace). Logback's own JsonEncoder nests the fields ({@code "mdc": {...}},
 * {@code "kvpList": [{...}]}), which log pipelines (Loki, Elasticsearch, Cloud Logging) do not flatten by themselves.
 */
public final class JsonLineEncoder extends EncoderBase<ILoggingEvent> {
    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX")
            .withZone(ZoneOffset.UTC);
    private static final byte[] NEWLINE = {'\n'};
    static final List<String> BASE = List.of("time", "level", "logger", "thread", "message", "exception");

    @Override
    public byte[] headerBytes() {
        return null;
    }

    @Override
    public byte[] footerBytes() {
        return null;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("time", TIME.format(Instant.ofEpochMilli(event.getTimeStamp())));
        line.put("level", event.getLevel().toString());
        line.put("logger", event.getLoggerName());
        line.put("thread", event.getThreadName());
        line.put("message", event.getFormattedMessage());
        Map<String, String> mdc = event.getMDCPropertyMap();
        if (mdc != null) mdc.forEach((k, v) -> field(line, k, v));
        List<KeyValuePair> pairs = event.getKeyValuePairs();
        if (pairs != null) for (KeyValuePair p : pairs) field(line, p.key, p.value);
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) line.put("exception", ThrowableProxyUtil.asString(thrown));
        byte[] json = JSON.writeValueAsString(line).getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[json.length + 1];
        System.arraycopy(json, 0, out, 0, json.length);
        out[json.length] = NEWLINE[0];
        return out;
    }

    private static void field(Map<String, Object> line, String key, Object value) {
        if (key == null || value == null || BASE.contains(key)) return;
        Object v = value instanceof Number || value instanceof Boolean ? value : String.valueOf(value);
        if (key.equals("cycle") && v instanceof String s && s.matches("\\d{1,18}")) v = Long.parseLong(s);
        line.put(key, v);
    }
}
