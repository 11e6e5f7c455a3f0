package dev.arbiter.engine.cycle;

import dev.arbiter.engine.rules.PolicyEvaluation;
import dev.arbiter.engine.rules.PolicyException;
import dev.arbiter.engine.rules.PolicyKinds;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.rules.SessionWatches;

import dev.arbiter.facts.AllocationLimit;
import dev.arbiter.facts.Clock;
import dev.arbiter.facts.ClusterFact;
import dev.arbiter.facts.DeservedShare;
import dev.arbiter.facts.JobFact;
import dev.arbiter.facts.PriorityClassFact;
import dev.arbiter.facts.PriorityLookup;
import dev.arbiter.facts.PriorityOf;
import dev.arbiter.facts.QueueFact;
import dev.arbiter.facts.QueueShare;
import dev.arbiter.facts.ShareTerms;
import dev.arbiter.facts.TaskFact;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.policy.PolicySettings;
import dev.arbiter.scenario.ClusterBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@code validate} (and hot reload, before it swaps rules in) checks beyond compiling: the rules are run on a
 * built-in reference cluster, and on any clusters given, by the real engine, and what they decide is checked. Each
 * finding is one line, {@code file:line: problem}:
 * <ul>
 *   <li>a rule that reaches outside the policy (exits the JVM, touches files, the network, threads or processes);</li>
 *   <li>a rule in a group the engine never fires ({@code ruleflow-group "polciy"} silently turns a rule off);</li>
 *   <li>a rule that keeps firing, runs past the deadline or throws on the reference cluster;</li>
 *   <li>a fact a rule inserts that the engine does not read (a type neither the vocabulary nor the rules declare);</li>
 *   <li>rules that decide one thing two ways (two gang policies, two shares for a queue);</li>
 *   <li>a decision the engine needs that no rule makes: a priority for every class name in use, fair-share terms for
 *       every queue, an allocation limit and admission budget for every open queue, a gang requirement.</li>
 * </ul>
 * Unknown settings and unknown order or victim-order keys fail earlier, when {@code policy.yaml} is read.
 */
public final class PolicyCheck {
    /** Validate's own deadline per phase: the reference cluster is small, so a rule that takes longer is stuck. */
    static final Duration DEADLINE = Duration.ofSeconds(5);
    private static final Set<Class<?>> INPUTS = Set.of(ClusterFact.class, Clock.class, QueueFact.class, JobFact.class, TaskFact.class,
            PriorityClassFact.class, PriorityLookup.class, QueueShare.class, PolicySettings.class);

    private PolicyCheck() {}

    /** Every finding for {@code book}, run on the reference cluster and on {@code clusters}; empty when it is sound. */
    public static List<String> check(RuleBook book, List<ClusterSnapshot> clusters) {
        List<String> findings = new ArrayList<>();
        RuleBook quick = book.withDeadline(min(book.settings().limits().deadline(), DEADLINE));
        List<ClusterSnapshot> all = new ArrayList<>();
        all.add(referenceCluster());
        all.addAll(clusters);
        Set<String> seen = new LinkedHashSet<>();
        for (ClusterSnapshot c : all) {
            for (String f : run(quick, c)) if (seen.add(f)) findings.add(f);
        }
        return findings;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** One cycle of the real engine on {@code cluster}, watched: run-time failures, unknown facts, conflicts, gaps. */
    private static List<String> run(RuleBook book, ClusterSnapshot cluster) {
        List<String> out = new ArrayList<>();
        SessionWatches.PolicyWatch watch = new SessionWatches.PolicyWatch(book,
                type -> INPUTS.contains(type) || PolicyKinds.of(type) != null);
        try {
            new Scheduler(book, SchedulerConfig.simulatorDefault()).withHook(watch).schedule(cluster, 1);
        } catch (PolicyException e) {
            out.addAll(conflictLines(book, watch.conflicts()));
            out.add(e.getMessage().matches("^\\S+:\\d+: .*") ? e.getMessage() : book.folder() + ": " + e.getMessage());
            return out;
        }
        out.addAll(conflictLines(book, watch.conflicts()));
        watch.foreign().forEach((type, rule) -> out.add(at(book, rule) + "rule \"" + rule + "\" inserts " + type.getSimpleName()
                + ", which the engine does not read (policy facts: " + known() + ")"));
        watch.missing().forEach((what, why) -> out.add(book.folder() + ": " + why));
        return out;
    }

    /**
     * One line per pair of rules that disagree on a kind: at the second rule's {@code file:line}, naming the first
     * rule's, and the keys they disagree on (the first few).
     */
    private static List<String> conflictLines(RuleBook book, List<PolicyKinds.Conflict> conflicts) {
        Map<List<String>, List<String>> keys = new java.util.TreeMap<>(java.util.Comparator.comparing(Object::toString));
        for (PolicyKinds.Conflict c : conflicts) {
            keys.computeIfAbsent(List.of(c.kind(), c.firstRule(), c.secondRule()), k -> new ArrayList<>()).add(c.key());
        }
        List<String> out = new ArrayList<>();
        keys.forEach((k, on) -> {
            on.sort(null);
            String where = on.equals(List.of("")) ? "" : " for " + String.join(", ", on.subList(0, Math.min(3, on.size())))
                    + (on.size() > 3 ? " and " + (on.size() - 3) + " more" : "");
            String first = book.locate(k.get(1));
            out.add(at(book, k.get(2)) + k.get(0) + where + ": rule \"" + k.get(2) + "\" decides differently from rule \""
                    + k.get(1) + "\"" + (first == null ? "" : " (" + first + ")") + "; a " + k.get(0)
                    + " is one decision: drop one rule or make their conditions exclusive");
        });
        return out;
    }

    private static String at(RuleBook book, String rule) {
        String where = book.locate(rule);
        return (where == null ? book.folder().toString() : where) + ": ";
    }

    private static String known() {
        List<String> names = new ArrayList<>();
        for (PolicyKinds.Kind<?> k : PolicyKinds.all()) names.add(k.type().getSimpleName());
        return String.join(", ", names);
    }

    /**
     * A small cluster that exercises every part of the vocabulary: a queue tree with a capability, a guarantee, a fifo
     * queue and a closed queue; priority classes with a default, one that never preempts, and a name that does not
     * exist; gangs with roles, elastic jobs and single pods; running pods old and young, one not preemptable, pending
     * pods that never preempt; a PodGroup without a priority class. The clock reads 1000 s.
     */
    static ClusterSnapshot referenceCluster() {
        String gpu = "nvidia.com/gpu";
        return ClusterBuilder.cluster()
                .nodes(6, gpu, 8, "cpu", 64, "memory", "512Gi")
                .priorityClass("critical", 100000).priorityClass("regular", 100, true).priorityClass("low", 10)
                .priorityClassSpec(new dev.arbiter.model.PriorityClassSpec("polite", 500, false, "Never"))
                .queue("org").weight(2).capability(gpu, 40).end()
                .queue("train").parent("org").weight(1).guarantee(gpu, 8).end()
                .queue("serve").parent("org").weight(1).dequeue("fifo").end()
                .queue("batch").weight(1).end()
                .queue("retired").state("Closed").end()
                .job("ml/gang").queue("train").priorityClass("regular").pods("master", 1, gpu, 8, "cpu", 8)
                        .pods("worker", 2, gpu, 8, "cpu", 8).minMember(3).minTaskMember("worker", 2)
                        .running("node-1", "node-2", "node-3").startedAt(100).end()
                .job("ml/elastic").queue("batch").priorityClass("low").pods(3, gpu, 8).minMember(1)
                        .running("node-4", "node-5").startedAt(990).end()
                .job("ml/steady").queue("batch").priorityClass("low").pods(1, gpu, 8).running("node-6").startedAt(0)
                        .notPreemptable().end()
                .job("ml/serve").queue("serve").podPriorityClass("critical").pods(2, gpu, 8).end()
                .job("ml/polite").queue("serve").priorityClass("polite").pods(1, gpu, 4).end()
                .job("ml/shy").queue("batch").priorityClass("regular").preemptionPolicy("Never").pods(1, gpu, 4).end()
                .job("ml/lost").queue("nope").priorityClass("no-such-class").pods(1, gpu, 1).end()
                .job("ml/shut").queue("retired").pods(1, gpu, 1).end()
                .barePods("ml/single").queue("batch").pods(1, gpu, 2).end()
                .snapshot(1000);
    }
}
