package dev.arbiter.live;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The log lines written while it is open. Logback's console appender writes to whatever {@code System.err} is at each line, so a
 * tee keeps them and still prints them. Close it to put {@code System.err} back.
 */
final class CapturedLog implements AutoCloseable {
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final PrintStream stderr = System.err;

    CapturedLog() {
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (log) {
                    log.write(b);
                }
                stderr.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (log) {
                    log.write(b, off, len);
                }
                stderr.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8));
    }

    List<String> lines() {
        synchronized (log) {
            return log.toString(StandardCharsets.UTF_8).lines().toList();
        }
    }

    /** The lines that contain {@code text}. */
    List<String> lines(String text) {
        return lines().stream().filter(l -> l.contains(text)).toList();
    }

    @Override
    public void close() {
        System.setErr(stderr);
    }
}
