package dev.arbiter.engine.rules;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * What the process does when a rule runs past its deadline and cannot be stopped: on Java 20+ nothing can stop a
 * thread ({@code Thread.stop} is gone), and on Java 17 a consequence can outlive its stop (a loop in a {@code finally}).
 * The thread then keeps a core for good. A command (validate, simulate, verify, run's start-up) says the rule in one
 * line and ends with exit 3, as for any broken rule; the live scheduler says it in a log line, an event and a metric,
 * and its health check fails so that the pod is restarted. Until told otherwise nothing happens (an embedded run, a
 * test), and the stuck thread stays stuck.
 */
public final class StuckRules {
    private static volatile BiConsumer<String, String> action = (message, rule) -> { };
    /** Threads whose stuck rules are theirs to handle (a shadow policy's), with what to tell instead. */
    private static final java.util.Map<Thread, Consumer<String>> OWN = new java.util.concurrent.ConcurrentHashMap<>();

    private StuckRules() {}

    /** From now on, {@code then} is told (once per stuck phase, on the watchdog's thread) which rule is stuck and where. */
    public static void whenStuck(Consumer<String> then) {
        action = (message, rule) -> then.accept(message);
    }

    /** As {@link #whenStuck(Consumer)}, told the stuck rule's name too (null when no one rule was firing). */
    public static void whenStuck(BiConsumer<String, String> then) {
        action = then;
    }

    /**
     * Rules stuck on {@code thread} tell {@code then} instead of the process-wide action: a shadow policy's thread
     * ({@code run --shadow-rules}) is stuck for itself, and the active policy's health is not its business.
     */
    public static void whenStuckOn(Thread thread, Consumer<String> then) {
        OWN.put(thread, then);
    }

    /** {@code thread} reports to the process-wide action again (its owner stopped). */
    public static void forget(Thread thread) {
        OWN.remove(thread);
    }

    static void report(Thread worker, PolicyException stuck) {
        Consumer<String> own = worker == null ? null : OWN.get(worker);
        if (own != null) own.accept(stuck.getMessage());
        else action.accept(stuck.getMessage(), stuck.rule());
    }
}
