package dev.arbiter.authoring;

import dev.arbiter.engine.RuleBook;
import dev.arbiter.facts.ClusterFact;
import dev.arbiter.facts.JobFact;
import dev.arbiter.facts.PriorityClassFact;
import dev.arbiter.facts.PriorityLookup;
import dev.arbiter.facts.QueueFact;
import dev.arbiter.facts.TaskFact;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.PriorityClassSpec;
import dev.arbiter.model.QueueSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.scenario.ClusterBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.kie.api.event.rule.AfterMatchFiredEvent;
import org.kie.api.event.rule.DefaultAgendaEventListener;
import org.kie.api.event.rule.MatchCreatedEvent;
import org.kie.api.runtime.KieSession;

/**
 * Finds rules whose matches grow with the square of the cluster: the rules that, at production size, hold millions
 * of partial matches in memory (see stack-notes: about 150 B and 1 µs per match, for the life of the session).
 *
 * <p>How: the rules run over two generated clusters, the second with twice the pods and twice the nodes of the first
 * (same queues and priority classes), and the matches each rule creates are counted. A rule that joins on equality
 * grows about 2×; a rule that pairs running pods with running pods (or jobs with pods) without an equality grows
 * about 4×. A rule whose matches grow {@value #QUADRATIC_RATIO}× or more, and reach at least {@value #MIN_MATCHES}
 * on the larger cluster, is reported. Example: {@code TaskFact($q : queue) TaskFact(queue != $q)} makes 128 matches
 * on the 32-pod sample (16 running pods, 8 per queue) and 512 on the 64-pod one: growth 4.0, reported.
 *
 * <p>What is counted is complete matches (activations). A pair join whose pairs a later pattern of the same rule
 * filters out still holds the pairs in memory but creates few activations, so it is not caught; keep pair joins out
 * of rules altogether.
 *
 * <p>The facts are built from a {@link ClusterSnapshot} the way the engine's {@code PolicyEvaluation} builds them,
 * stage by stage (the engine offers no hook to attach a listener to its own session; with one, this class would run
 * the real {@code Scheduler} instead). Rule consequences run, so derived facts (shares, priorities) are as in a real
 * cycle. Each agenda group stops after {@value #FIRING_LIMIT} firings, so a rule that loops cannot hang
 * {@code validate}.
 */
public final class MatchGrowth {
    static final double QUADRATIC_RATIO = 3.0;
    static final long MIN_MATCHES = 100;
    public static final int FIRING_LIMIT = 200_000;
    private static final Set<String> SCHEDULERS = Set.of("arbiter", "volcano");

    /** One rule's matches on the small and the large sample cluster. */
    public record Growth(String rule, long small, long large) {
        public double ratio() {
            return small == 0 ? (large == 0 ? 1.0 : Double.POSITIVE_INFINITY) : (double) large / small;
        }

        public boolean quadratic() {
            return large >= MIN_MATCHES && ratio() >= QUADRATIC_RATIO;
        }
    }

    /**
     * What the check measured: the sample sizes, every rule's growth, and the rules that kept firing until a phase hit
     * the firing limit on the small sample (they re-trigger themselves; the large sample is then not run).
     */
    public record Report(int smallPods, int smallNodes, int largePods, int largeNodes, List<Growth> rules,
                         List<String> looping) {
        public List<Growth> quadratic() {
            return rules.stream().filter(Growth::quadratic).toList();
        }
    }

    /**
     * What one run counted: matches per rule, the looping rules, and (like the engine's rule trace) the rules that
     * fired per subject, {@code "PodGroup ns/name"}, {@code "Pod ns/name"} or {@code "Queue name"}.
     */
    record Counts(Map<String, Long> matches, List<String> looping, Map<String, java.util.Set<String>> firedOn) {}

    private MatchGrowth() {}

    /** Measures every rule of {@code book} on a 32-pod × 4-node and a 64-pod × 8-node sample cluster. */
    public static Report measure(RuleBook book) {
        ClusterSnapshot small = sampleCluster(32, 4);
        ClusterSnapshot large = sampleCluster(64, 8);
        Counts s = countMatches(book, small);
        Map<String, Long> l = s.looping().isEmpty() ? countMatches(book, large).matches() : Map.of();
        List<Growth> out = new ArrayList<>();
        for (String rule : book.ruleNames()) {
            out.add(new Growth(rule, s.matches().getOrDefault(rule, 0L), l.getOrDefault(rule, 0L)));
        }
        return new Report(small.pods().size(), small.nodes().size(), large.pods().size(), large.nodes().size(), out,
                s.looping());
    }

    /**
     * A busy cluster of {@code nodes} 8-GPU nodes and {@code pods} 2-GPU pods in gangs of 4 (a master and three
     * workers), spread over two tenant queues under one parent queue and three priority classes: half the gangs run
     * (one pod per node slot; some for less than the churn rules' minimum runtime, most for longer), half are pending.
     * The clock reads 1000 s.
     */
    static ClusterSnapshot sampleCluster(int pods, int nodes) {
        ClusterBuilder b = ClusterBuilder.cluster()
                .nodes(nodes, "nvidia.com/gpu", 8, "cpu", 64, "memory", "512Gi")
                .queue("org").weight(1).end()
                .queue("team-a").parent("org").weight(2).end()
                .queue("team-b").parent("org").weight(1).end()
                .priorityClass("high", 1000)
                .priorityClass("normal", 100, true)
                .priorityClass("low", 10);
        String[] classes = {"high", "normal", "low"};
        int gangs = pods / 4;
        int slot = 0;
        for (int g = 0; g < gangs; g++) {
            ClusterBuilder.JobBuilder job = b.job((g % 2 == 0 ? "ns-a/job-" : "ns-b/job-") + g)
                    .queue(g % 2 == 0 ? "team-a" : "team-b").priorityClass(classes[g % 3])
                    .pods("master", 1, "nvidia.com/gpu", 2, "cpu", 8)
                    .pods("worker", 3, "nvidia.com/gpu", 2, "cpu", 8).minMember(4);
            if (g < gangs / 2) {
                String[] on = new String[4];
                for (int i = 0; i < 4; i++) on[i] = "node-" + (slot++ % nodes + 1);
                job.running(on).startedAt(g % 4 == 3 ? 990 : 100);
            }
            job.end();
        }
        return b.snapshot(1000);
    }

    /**
     * Matches created per rule name while the rules run over the snapshot's facts, in the engine's stages:
     * priority class lookups and {@code classify}; then cluster, queue, job and running task facts with their
     * priorities, {@code fair-share} and {@code policy}.
     */
    static Counts countMatches(RuleBook book, ClusterSnapshot snapshot) {
        Map<String, Long> matches = new HashMap<>();
        Map<String, Long> firings = new HashMap<>();
        java.util.Set<String> looping = new java.util.TreeSet<>();
        Map<String, java.util.Set<String>> firedOn = new HashMap<>();
        KieSession session = book.newSession();
        try {
            session.addEventListener(new DefaultAgendaEventListener() {
                @Override
                public void matchCreated(MatchCreatedEvent event) {
                    matches.merge(event.getMatch().getRule().getName(), 1L, Long::sum);
                }

                @Override
                public void afterMatchFired(AfterMatchFiredEvent event) {
                    String rule = event.getMatch().getRule().getName();
                    firings.merge(rule, 1L, Long::sum);
                    for (Object o : event.getMatch().getObjects()) {
                        String subject = o instanceof JobFact j ? "PodGroup " + j.getId()
                                : o instanceof TaskFact t ? "Pod " + t.getId()
                                : o instanceof QueueFact q ? "Queue " + q.getName() : null;
                        if (subject != null) firedOn.computeIfAbsent(subject, k -> new java.util.TreeSet<>()).add(rule);
                    }
                }
            });
            Cluster c = new Cluster(snapshot);
            for (PriorityClassSpec pc : snapshot.priorityClasses()) {
                session.insert(new PriorityClassFact(pc.name(), pc.value(), pc.globalDefault(), pc.preemptionPolicy()));
            }
            Map<String, PriorityLookup> lookups = new HashMap<>();
            for (PodGroupSpec g : c.groups.values()) lookups.computeIfAbsent(g.priorityClassName(), PriorityLookup::new);
            for (List<PodSpec> ps : c.members.values()) for (PodSpec p : ps) lookups.computeIfAbsent(p.priorityClassName(), PriorityLookup::new);
            lookups.values().forEach(session::insert);
            fire(session, "classify", firings, looping);
            for (Object fact : c.facts(lookups)) session.insert(fact);
            fire(session, "fair-share", firings, looping);
            fire(session, "policy", firings, looping);
        } finally {
            session.dispose();
        }
        return new Counts(matches, List.copyOf(looping), firedOn);
    }

    /** Fires one phase; if it hits the firing limit, the rule that fired most in it is looping. */
    private static void fire(KieSession session, String group, Map<String, Long> firings, java.util.Set<String> looping) {
        Map<String, Long> before = new HashMap<>(firings);
        session.getAgenda().getAgendaGroup(group).setFocus();
        if (session.fireAllRules(FIRING_LIMIT) < FIRING_LIMIT) return;
        firings.entrySet().stream()
                .max(java.util.Comparator.comparingLong(e -> e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                .ifPresent(e -> looping.add(e.getKey()));
        session.getAgenda().clear();
    }

    /**
     * A snapshot indexed as the engine indexes it: jobs (PodGroups, and implicit gangs of one for pods without one)
     * with the pods of this scheduler, and the queue tree. (Broken trees, which the engine cuts loose and closes,
     * are not reproduced: the sample clusters have none.)
     */
    private static final class Cluster {
        final ClusterSnapshot snap;
        final Map<String, QueueSpec> queues = new LinkedHashMap<>();
        final Map<String, List<String>> children = new HashMap<>();
        final Map<String, PodGroupSpec> groups = new LinkedHashMap<>();
        final Map<String, List<PodSpec>> members = new LinkedHashMap<>();
        final Set<String> implicit = new java.util.HashSet<>();

        Cluster(ClusterSnapshot snap) {
            this.snap = snap;
            for (QueueSpec q : snap.queues()) if (!q.name().equals(QueueSpec.ROOT)) queues.put(q.name(), q);
            for (QueueSpec q : queues.values()) children.computeIfAbsent(q.parentOrRoot(), k -> new ArrayList<>()).add(q.name());
            for (PodGroupSpec g : snap.podGroups()) groups.put(g.key(), g);
            for (PodSpec p : snap.pods()) {
                if (!SCHEDULERS.contains(p.schedulerName()) || p.terminating()) continue;
                String job = jobOf(p);
                if (p.groupName() == null && implicit.add(job)) {
                    groups.put(job, new PodGroupSpec(p.namespace(), "podgroup-" + p.name(),
                            p.annotations().getOrDefault(PodSpec.QUEUE_ANNOTATION, QueueSpec.DEFAULT), 1, Map.of(), null,
                            p.priorityClassName(), p.isBound() ? "Running" : "Pending", 0, p.creationOrder()));
                }
                members.computeIfAbsent(job, k -> new ArrayList<>()).add(p);
            }
        }

        /**
         * Cluster, queue, job and running task facts, as the engine builds them: queue amounts cover the queue's
         * subtree, a queue's guarantee is the larger of its own and its children's, priorities come from the
         * resolved lookups (a pod's own spec.priority wins), a running task's time is measured on the snapshot clock.
         */
        List<Object> facts(Map<String, PriorityLookup> lookups) {
            Resources total = Resources.NONE;
            for (NodeSpec n : snap.nodes()) if (!n.unschedulable()) total = total.add(n.allocatable());
            Resources guaranteed = Resources.NONE;
            for (String top : children.getOrDefault(QueueSpec.ROOT, List.of())) guaranteed = guaranteed.add(guarantee(top));
            List<Object> out = new ArrayList<>();
            out.add(new ClusterFact(total, guaranteed));
            Map<String, Resources> allocated = new HashMap<>();
            Map<String, Resources> request = new HashMap<>();
            List<Object> jobsAndTasks = new ArrayList<>();
            for (PodGroupSpec g : groups.values()) {
                List<PodSpec> ps = members.getOrDefault(g.key(), List.of());
                int running = 0, never = 0;
                Resources min = Resources.NONE;
                for (int i = 0; i < ps.size(); i++) {
                    PodSpec p = ps.get(i);
                    request.merge(g.queue(), p.requests(), Resources::add);
                    if (i < g.minMember()) min = min.add(p.requests());
                    if (!p.isBound()) {
                        if ("Never".equals(p.preemptionPolicy())) never++;
                        continue;
                    }
                    running++;
                    allocated.merge(g.queue(), p.requests(), Resources::add);
                    int priority = p.priority() != null ? p.priority() : value(lookups, p.priorityClassName());
                    long ran = p.startedAt() != PodSpec.UNKNOWN_START ? Math.max(0, snap.now() - p.startedAt()) : -1;
                    jobsAndTasks.add(new TaskFact(p.key(), g.key(), g.queue(), p.priorityClassName(), priority,
                            p.preemptionPolicy(), true, p.preemptableMarker(), p.isLeader(), ran));
                }
                jobsAndTasks.add(new JobFact(g.key(), g.queue(), g.minMember(), g.minTaskMember(),
                        g.minResources() == null ? min : g.minResources(), g.priorityClassName(),
                        g.phase() == null ? "Pending" : g.phase(), implicit.contains(g.key()), ps.size() - running,
                        running, g.creationOrder(), value(lookups, g.priorityClassName()), never));
            }
            for (QueueSpec q : queues.values()) {
                out.add(new QueueFact(q.name(), q.parentOrRoot(), q.weight(), q.priority(), "Open".equals(q.state()),
                        q.reclaimable(), q.capability(), guarantee(q.name()), subtree(q.name(), request),
                        subtree(q.name(), allocated), Resources.NONE, q.dequeueStrategy(), q.deserved()));
            }
            out.addAll(jobsAndTasks);
            return out;
        }

        private static int value(Map<String, PriorityLookup> lookups, String name) {
            PriorityLookup l = lookups.get(name);
            return l == null ? 0 : l.getValue();
        }

        private Resources subtree(String queue, Map<String, Resources> own) {
            Resources r = own.getOrDefault(queue, Resources.NONE);
            for (String c : children.getOrDefault(queue, List.of())) r = r.add(subtree(c, own));
            return r;
        }

        private Resources guarantee(String queue) {
            Resources sum = Resources.NONE;
            for (String c : children.getOrDefault(queue, List.of())) sum = sum.add(guarantee(c));
            return queues.get(queue).guarantee().max(sum);
        }
    }

    private static String jobOf(PodSpec p) {
        return p.namespace() + "/" + (p.groupName() != null ? p.groupName() : "podgroup-" + p.name());
    }
}
