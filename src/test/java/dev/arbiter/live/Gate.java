package dev.arbiter.live;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A rule consequence that does not finish until the test opens the gate: a stand-in for a rule that never terminates,
 * which (unlike a real endless loop) does not leave a thread spinning after the test. Rules call {@link #pass()}.
 */
public final class Gate {
    private static volatile CountDownLatch latch = new CountDownLatch(0);
    private static volatile CountDownLatch entered = new CountDownLatch(0);

    private Gate() {}

    /** Closes the gate: the next {@link #pass()} blocks until {@link #open()}. */
    static void close() {
        latch = new CountDownLatch(1);
        entered = new CountDownLatch(1);
    }

    static void open() {
        latch.countDown();
    }

    static boolean awaitEntered(long seconds) throws InterruptedException {
        return entered.await(seconds, TimeUnit.SECONDS);
    }

    /** Called from a rule: blocks while the gate is closed (at most a minute, so no test can hang on it). */
    public static void pass() {
        entered.countDown();
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
