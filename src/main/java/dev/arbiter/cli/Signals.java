package dev.arbiter.cli;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM and SIGINT as requests to stop, for {@code arbiter run} as a process: the JVM's default (run the shutdown
 * hooks, exit 143) is replaced by a handler that lets the command shut down in order and exit 0, as Kubernetes
 * expects of a pod it terminates. A watchdog ends the process if the shutdown overruns its grace period anyway.
 * Only the real process installs these (see {@link Main#isStandalone()}); embedded runs are stopped by interrupting
 * their thread.
 */
final class Signals {
    private static final Logger LOG = LoggerFactory.getLogger(Signals.class);

    private record Installed(Signal signal, SignalHandler previous) {}

    private final List<Installed> installed = new ArrayList<>();
    private volatile Thread watchdog;

    private Signals() {}

    /**
     * Makes SIGTERM and SIGINT call {@code onStop} (on the JVM's signal thread) and arm the {@link #watchdog} for
     * {@code limit} at once: from the first instant, whatever the process is waiting on, it is gone within the limit.
     */
    static Signals install(Runnable onStop, java.time.Duration limit) {
        Signals s = new Signals();
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal sig = new Signal(name);
                SignalHandler previous = Signal.handle(sig, received -> {
                    LOG.info("received SIG{}", name);
                    s.watchdog(limit);
                    onStop.run();
                });
                s.installed.add(new Installed(sig, previous));
            } catch (IllegalArgumentException unsupported) {
                LOG.debug("cannot handle SIG{} on this platform", name);
            }
        }
        return s;
    }

    /**
     * Ends the process (exit 1) if it is still alive after {@code limit}: shutdown must not outlive the grace. Armed
     * once: later calls change nothing.
     */
    synchronized void watchdog(java.time.Duration limit) {
        if (watchdog != null) return;
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(limit.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            LOG.error("shutdown did not finish within {} s; exiting anyway", limit.toSeconds());
            Runtime.getRuntime().halt(1);
        }, "arbiter-shutdown-watchdog");
        t.setDaemon(true);
        t.start();
        watchdog = t;
    }

    /** The previous handlers come back, and a watchdog is called off (the shutdown finished). */
    void restore() {
        for (Installed i : installed) Signal.handle(i.signal(), i.previous());
        Thread w = watchdog;
        if (w != null) w.interrupt();
    }
}
