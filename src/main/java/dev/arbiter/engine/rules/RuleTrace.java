package dev.arbiter.engine.rules;

import dev.arbiter.engine.state.Job;

import dev.arbiter.facts.JobFact;
import dev.arbiter.facts.QueueFact;
import dev.arbiter.facts.TaskFact;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kie.api.event.rule.AfterMatchFiredEvent;
import org.kie.api.event.rule.DefaultAgendaEventListener;

/**
 * Records which rules fired on which PodGroup, Pod and Queue, so that every decision can be explained with the
 * rules behind it. A rule that fires several times on one subject is listed once.
 */
public final class RuleTrace extends DefaultAgendaEventListener {
    private final Map<String, List<String>> fired = new HashMap<>();
    private final boolean on;

    /** A trace that records. */
    public RuleTrace() {
        this(true);
    }

    private RuleTrace(boolean on) {
        this.on = on;
    }

    /**
     * A trace that records nothing, for a scheduler whose results no one explains (the live one): the per-subject
     * lists cost a map entry per job and pod every cycle. Decisions still name their rules.
     */
    public static RuleTrace off() {
        return new RuleTrace(false);
    }

    /** True when this trace records (a session listens to it only then). */
    boolean on() {
        return on;
    }

    @Override
    public void afterMatchFired(AfterMatchFiredEvent event) {
        String rule = event.getMatch().getRule().getName();
        for (Object o : event.getMatch().getObjects()) {
            String subject = subject(o);
            if (subject == null) continue;
            List<String> rules = fired.computeIfAbsent(subject, k -> new ArrayList<>(4));
            if (!rules.contains(rule)) rules.add(rule);
        }
    }

    private static String subject(Object o) {
        if (o instanceof JobFact j) return "PodGroup " + j.getId();
        if (o instanceof TaskFact t) return "Pod " + t.getId();
        if (o instanceof QueueFact q) return "Queue " + q.getName();
        return null;
    }

    /**
     * Each job's priority came from its class's lookup, or (a PodGroup naming no class) from its pods: the rule that
     * decided it fired for the job too.
     */
    void priorityResolved(java.util.Collection<Job> jobs, Map<String, Object> decided,
                          dev.arbiter.facts.PriorityFromPods fromPods) {
        if (!on) return;
        for (Job j : jobs) {
            String rule;
            if (j.priorityClassName == null && fromPods != null && !j.implicit && (!j.running.isEmpty() || !j.pending.isEmpty())) {
                rule = fromPods.rule();
            } else {
                Object d = decided.get(j.priorityClassName == null ? "" : j.priorityClassName);
                rule = d == null ? null : ((dev.arbiter.facts.PriorityOf) d).rule();
            }
            if (rule == null) continue;
            List<String> rules = fired.computeIfAbsent("PodGroup " + j.id, k -> new ArrayList<>(4));
            if (!rules.contains(rule)) rules.add(0, rule);
        }
    }

    /** The general gang rule decided for every job it did not override. */
    public void gangPolicy(java.util.Collection<Job> jobs, Policy policy) {
        if (!on) return;
        for (Job j : jobs) {
            dev.arbiter.facts.GangRequirement g = policy.gangFor(j);
            if (g == null) continue;
            List<String> rules = fired.computeIfAbsent("PodGroup " + j.id, k -> new ArrayList<>(4));
            if (!rules.contains(g.rule())) rules.add(g.rule());
        }
    }

    public Map<String, List<String>> fired() {
        return fired;
    }
}
