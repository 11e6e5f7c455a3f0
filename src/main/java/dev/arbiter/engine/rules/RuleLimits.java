package dev.arbiter.engine.rules;

import dev.arbiter.policy.PolicySettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.kie.api.event.rule.AfterMatchFiredEvent;
import org.kie.api.event.rule.BeforeMatchFiredEvent;
import org.kie.api.event.rule.DefaultAgendaEventListener;
import org.kie.api.runtime.KieSession;
import org.kie.api.runtime.rule.ConsequenceException;

/**
 * Keeps a rules session from wedging the scheduler: every phase fires under a firing limit and a deadline, both from
 * the policy's settings ({@code limits} in {@code policy.yaml}). Past the limit (a rule whose consequence re-triggers
 * it, or two rules that feed each other), past the deadline (a rule whose consequence does not return), or when a
 * consequence throws, the phase fails with one {@link PolicyException} line naming the rule and where it is.
 *
 * <p>A phase that runs past its deadline is halted between firings; a consequence that still does not return within a
 * grace period is stopped ({@link Thread#stop()}, where the JVM still offers it — Java 17 does): the cycle fails, the
 * thread survives and the session is thrown away. On a JVM without {@code Thread.stop} (Java 20+, the image's 25), or
 * when the thread still fires a grace period after the stop, the rule is stuck for good: {@link StuckRules} is told,
 * and the process says so and ends (commands) or fails its health check (the live scheduler).
 */
final class RuleLimits extends DefaultAgendaEventListener {
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "arbiter-rule-watchdog");
        t.setDaemon(true);
        return t;
    });

    private final PolicySettings.Limits limits;
    private final RuleBook rules;
    private final Map<String, Long> firings = new HashMap<>();
    /** The rule whose consequence runs now, or null between firings (while conditions are matched). */
    private volatile String current;
    /** The rule that fired last in this phase, or null. */
    private volatile String lastFired;
    private volatile boolean timedOut;
    /** Guards {@link #firing} against the watchdog: it stops the thread only while that thread fires rules. */
    private final Object lock = new Object();
    private boolean firing;
    /** Counts {@link #fire} calls, so a late watchdog task never acts on a later phase. */
    private final AtomicLong runs = new AtomicLong();

    RuleLimits(PolicySettings.Limits limits, RuleBook rules) {
        this.limits = limits;
        this.rules = rules;
    }

    @Override
    public void beforeMatchFired(BeforeMatchFiredEvent event) {
        String rule = event.getMatch().getRule().getName();
        current = rule;
        firings.merge(rule, 1L, Long::sum);
    }

    @Override
    public void afterMatchFired(AfterMatchFiredEvent event) {
        lastFired = current;
        current = null;
    }

    /**
     * What ran past the deadline: the rule whose consequence was running, or, between firings, the matching of
     * conditions (a {@code from} or a condition that takes the time belongs to no rule that fired yet, and blaming the
     * last rule to fire misled: issue 34).
     */
    private PolicyException pastDeadline(String group, long deadline, boolean stopped) {
        return pastDeadline(group, deadline, stopped, "it was stopped");
    }

    private PolicyException pastDeadline(String group, long deadline, boolean stopped, String outcome) {
        String rule = current;
        String limit = deadline + " ms (limits.deadline in policy.yaml)";
        if (!stopped) {
            // Halted between firings: the phase as a whole took too long.
            String blamed = rule != null ? rule : lastFired;
            return new PolicyException(where(rule) + "phase " + group + " ran past the deadline of " + limit
                    + (rule != null ? "; rule \"" + rule + "\" was firing"
                    : lastFired != null ? "; the last rule to fire was \"" + lastFired + "\"" : ""), blamed);
        }
        if (rule != null) {
            return new PolicyException(where(rule) + "rule \"" + rule + "\" did not return within the deadline of " + limit
                    + "; " + outcome + " (phase " + group + ")", rule);
        }
        return new PolicyException("phase " + group + " did not finish within the deadline of " + limit + " while matching"
                + " conditions, not in a rule's consequence: a condition or a 'from' took the time; " + outcome
                + (lastFired == null ? "" : " (the last rule to fire was \"" + lastFired + "\")"), null);
    }

    private static boolean stoppedBy(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof ThreadDeath) return true;
        }
        return false;
    }

    /** Fires {@code phase} to completion within the limits; returns the number of firings. */
    long fire(KieSession session, Phase phase, long facts) {
        String group = phase.group();
        session.getAgenda().getAgendaGroup(group).setFocus();
        long limit = Math.min(Integer.MAX_VALUE, limits.firingLimit(facts));
        firings.clear();
        current = null;
        lastFired = null;
        timedOut = false;
        Thread worker = Thread.currentThread();
        synchronized (lock) {
            firing = true;
        }
        long deadline = limits.deadline().toMillis();
        ScheduledFuture<?> halt = WATCHDOG.schedule(() -> {
            timedOut = true;
            session.halt();
        }, deadline, TimeUnit.MILLISECONDS);
        long run = runs.incrementAndGet();
        ScheduledFuture<?> stop = WATCHDOG.schedule(() -> stop(worker, run, group, deadline), deadline + GRACE.toMillis(),
                TimeUnit.MILLISECONDS);
        long n;
        try {
            n = session.fireAllRules((int) limit);
        } catch (ConsequenceException e) {
            if (timedOut || stoppedBy(e)) throw pastDeadline(group, deadline, true);
            String rule = e.getMatch().getRule().getName();
            throw new PolicyException(where(rule) + "rule \"" + rule + "\" failed in phase " + group + ": "
                    + describe(e.getCause() == null ? e : e.getCause()), rule);
        } catch (StackOverflowError deep) {
            // A rule (or a function it calls) that recurses without end: the rules' fault, said as one line, never a
            // trace; the session is thrown away with the cycle.
            throw new PolicyException(where(current) + (current == null ? "a rule" : "rule \"" + current + "\"")
                    + " recursed without end in phase " + group + " (StackOverflowError)", current);
        } catch (ThreadDeath stopped) {
            throw pastDeadline(group, deadline, true);
        } catch (RuntimeException e) {
            // Stopped inside the engine's own code, a stop surfaces as whatever that code threw while unwinding
            // (PropertyAccessException from a 'from', IllegalMonitorStateException from an insert): say the deadline.
            if (timedOut || stoppedBy(e)) throw pastDeadline(group, deadline, true);
            throw e;
        } finally {
            synchronized (lock) {
                firing = false;
            }
            halt.cancel(false);
            stop.cancel(false);
        }
        if (timedOut) throw pastDeadline(group, deadline, false);
        if (n >= limit) {
            String busiest = busiest();
            throw new PolicyException(where(busiest) + "rule \"" + busiest + "\" kept firing: " + limit + " firings in phase "
                    + group + " over " + facts + " facts (limits in policy.yaml); its consequence re-triggers it or another rule",
                    busiest);
        }
        return n;
    }

    /**
     * Stops the thread still firing run {@code run}; where it cannot be stopped, or still fires a grace period later,
     * the rule is stuck for good and {@link StuckRules} is told.
     */
    @SuppressWarnings("removal")
    private void stop(Thread worker, long run, String group, long deadline) {
        boolean unstoppable = false;
        synchronized (lock) {
            if (!firing || runs.get() != run) return;
            try {
                worker.stop();
            } catch (UnsupportedOperationException notOnThisJvm) {
                unstoppable = true;
            }
        }
        if (unstoppable) {
            stuck(worker, group, deadline, "it cannot be stopped on this JVM (Java " + Runtime.version().feature() + ")");
            return;
        }
        WATCHDOG.schedule(() -> {
            synchronized (lock) {
                if (!firing || runs.get() != run) return;
            }
            stuck(worker, group, deadline, "it did not stop when told to");
        }, GRACE.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void stuck(Thread worker, String group, long deadline, String outcome) {
        StuckRules.report(worker, pastDeadline(group, deadline, true, outcome + ", and keeps a core"));
    }

    /** The rule that fired most in this phase. */
    private String busiest() {
        String best = current;
        long most = -1;
        for (Map.Entry<String, Long> e : firings.entrySet()) {
            if (e.getValue() > most || (e.getValue() == most && e.getKey().compareTo(best) < 0)) {
                best = e.getKey();
                most = e.getValue();
            }
        }
        return best;
    }

    /** {@code file:line: } of a rule, or nothing when unknown. */
    private String where(String rule) {
        String at = rule == null ? null : rules.locate(rule);
        return at == null ? "" : at + ": ";
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m.replaceAll("\\s+", " ").trim());
    }
}
