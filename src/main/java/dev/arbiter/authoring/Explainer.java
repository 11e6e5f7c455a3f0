package dev.arbiter.authoring;

import dev.arbiter.authoring.Explanation.Gang;
import dev.arbiter.authoring.Explanation.NodeGap;
import dev.arbiter.authoring.Explanation.Share;
import dev.arbiter.authoring.Explanation.Step;
import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.Manifests;
import dev.arbiter.model.NodeSpec;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import dev.arbiter.model.Taint;
import dev.arbiter.model.Toleration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Explains a decision from what the scheduler decided (the cycles) and the objects it decided on: the rules that
 * fired, the queue numbers of the deciding cycle, gang progress, and for a pending pod the node closest to fitting it.
 * Pure functions; the simulator's {@code explain} and live mode's PodGroup conditions and FailedScheduling events
 * share {@link #explain} and {@link Explanation#reason()}.
 */
public final class Explainer {
    private Explainer() {}

    /** The subject names neither a pod nor a PodGroup. */
    public static final class UnknownSubjectException extends IllegalArgumentException {
        public UnknownSubjectException(String message) {
            super(message);
        }
    }

    /**
     * Fails fast, before any simulation, when {@code subject} names no pod, no PodGroup and no implicit gang
     * ({@code ns/podgroup-<pod>}) in {@code manifests}.
     *
     * @throws UnknownSubjectException naming the subject
     */
    /** Labels by which the pods of a controller's job name it: Volcano, Kubeflow, LeaderWorkerSet, batch/v1 Job. */
    private static final List<String> JOB_NAME_LABELS = List.of("volcano.sh/job-name", "training.kubeflow.org/job-name",
            "leaderworkerset.sigs.k8s.io/name", "batch.kubernetes.io/job-name", "job-name");

    /** What {@link #resolve} made of a name: the pod or PodGroup to explain, and a line saying how it got there. */
    public record Resolved(String subject, String note) {}

    /**
     * {@code subject} itself when a pod or PodGroup has that name; else, when pods of a Volcano Job, PyTorchJob,
     * MPIJob, LeaderWorkerSet or batch Job of that name exist (by their controllers' job-name labels), the PodGroup
     * they belong to (the first that has a pod not running, else the first), with a note naming it.
     *
     * @throws UnknownSubjectException when neither exists
     */
    public static Resolved resolve(Manifests manifests, String subject) {
        try {
            checkSubject(manifests, subject);
            return new Resolved(subject, null);
        } catch (UnknownSubjectException unknown) {
            int slash = subject.indexOf('/');
            String ns = subject.substring(0, slash), name = subject.substring(slash + 1);
            java.util.LinkedHashMap<String, Boolean> groups = new java.util.LinkedHashMap<>();
            String label = null;
            for (PodSpec p : manifests.pods()) {
                if (!p.namespace().equals(ns)) continue;
                for (String l : JOB_NAME_LABELS) {
                    if (name.equals(p.labels().get(l))) {
                        if (label == null) label = l;
                        groups.merge(ClusterReplay.jobOf(p), !p.isBound(), Boolean::logicalOr);
                        break;
                    }
                }
            }
            if (groups.isEmpty()) throw unknown;
            String chosen = groups.entrySet().stream().filter(java.util.Map.Entry::getValue).map(java.util.Map.Entry::getKey)
                    .findFirst().orElse(groups.keySet().iterator().next());
            String note = subject + " (pods labelled " + label + "=" + name + ") is PodGroup " + chosen
                    + (groups.size() > 1 ? " of " + groups.size() + " (" + String.join(", ", groups.keySet()) + ")" : "");
            return new Resolved(chosen, note);
        }
    }

    public static void checkSubject(Manifests manifests, String subject) {
        for (PodSpec p : manifests.pods()) {
            if (p.key().equals(subject) || ClusterReplay.jobOf(p).equals(subject)) return;
        }
        for (PodGroupSpec g : manifests.podGroups()) if (g.key().equals(subject)) return;
        throw new UnknownSubjectException("no pod or PodGroup " + subject + " (expected namespace/name)");
    }

    /** Explains {@code subject} ({@code ns/pod} or {@code ns/podgroup}) in a simulation of {@code manifests}. */
    public static Explanation explain(Manifests manifests, List<CycleResult> cycles, List<PodGroupStatus> finalGroups,
                                      String subject, Set<String> schedulerNames) {
        ClusterSnapshot start = new ClusterSnapshot(manifests.nodes(), manifests.pods(), manifests.podGroups(),
                manifests.queues(), manifests.priorityClasses()).withHyperNodes(manifests.hyperNodes());
        return explain(start, cycles, finalGroups, subject, schedulerNames);
    }

    /**
     * Explains {@code subject} given the objects before the first cycle and the cycles run on them (live mode: the
     * cycle's snapshot and its one result; {@code finalGroups} is then {@code result.podGroups()}).
     *
     * @throws UnknownSubjectException when no pod or PodGroup has that name
     */
    public static Explanation explain(ClusterSnapshot start, List<CycleResult> cycles, List<PodGroupStatus> finalGroups,
                                      String subject, Set<String> schedulerNames) {
        return of(start, cycles, finalGroups, schedulerNames).explain(subject);
    }

    /**
     * Explains many subjects of one run, indexing the objects once. Live mode makes one per cycle, from the cycle's
     * snapshot and result, and asks {@code oneLine(podGroup)} for each PodGroup that is not running, for its condition
     * and its pods' FailedScheduling events. Not thread-safe.
     */
    public static Run of(ClusterSnapshot start, List<CycleResult> cycles, List<PodGroupStatus> finalGroups,
                         Set<String> schedulerNames) {
        return new Run(new ClusterReplay(start, cycles, schedulerNames), finalGroups);
    }

    /** See {@link #of}. */
    public static final class Run {
        private final ClusterReplay replay;
        private final Map<String, PodGroupStatus> groups = new java.util.HashMap<>();

        private Run(ClusterReplay replay, List<PodGroupStatus> finalGroups) {
            this.replay = replay;
            for (PodGroupStatus g : finalGroups) groups.put(g.podGroup(), g);
        }

        /** @throws UnknownSubjectException when no pod or PodGroup has that name */
        public Explanation explain(String subject) {
            return Explainer.explain(replay, groups, subject);
        }

        /**
         * The one-line reason with its rule (e.g. {@code "gang of 4 needs 4 tasks, 2 placeable: ...; closest node
         * node-2 lacks nvidia.com/gpu 8 [rule: gang: ...]"}).
         */
        public String oneLine(String subject) {
            return ExplanationText.oneLine(explain(subject));
        }
    }

    private static Explanation explain(ClusterReplay replay, Map<String, PodGroupStatus> groups, String subject) {
        List<CycleResult> cycles = replay.cycles();
        PodSpec pod = replay.pod(subject);
        String job = pod != null ? ClusterReplay.jobOf(pod) : subject;
        List<PodSpec> members = replay.members(job);
        PodGroupSpec group = replay.group(job);
        if (pod == null && group == null && members.isEmpty()) {
            throw new UnknownSubjectException("no pod or PodGroup " + subject + " (expected namespace/name)");
        }
        List<PodSpec> focus = pod != null ? List.of(pod) : members;
        String queue = group != null ? group.queue() : members.isEmpty() ? null : replay.queueOf(members.get(0));
        PodGroupStatus status = groups.get(job);

        List<Step> steps = steps(cycles, focus, job);
        Gang gang = gang(replay, members, status, group);
        List<NodeGap> closest = closest(replay, focus);
        Verdict v = pod != null ? podVerdict(replay, pod, steps, status, closest) : groupVerdict(replay, job, steps, status, gang, closest);
        Map<String, List<String>> fired = rulesFired(cycles, v.cycle, pod != null ? "Pod " + subject : "PodGroup " + job,
                pod != null ? List.of() : members, job, queue);
        List<Share> shares = shares(replay, v.cycle, queue, steps, focus, !closest.isEmpty());
        Map<String, Integer> holders = closest.isEmpty() ? Map.of() : holderRules(replay, shares, queue);
        return new Explanation((pod != null ? "Pod " : "PodGroup ") + subject, job, queue, v.outcome, v.reason, v.rule,
                steps, fired, v.cycle, shares, gang, closest, holders, status == null ? null : status.domain());
    }

    private record Verdict(String outcome, String reason, String rule, int cycle) {}

    private static List<Step> steps(List<CycleResult> cycles, List<PodSpec> focus, String job) {
        Set<String> pods = new LinkedHashSet<>();
        for (PodSpec p : focus) pods.add(p.key());
        List<Step> out = new ArrayList<>();
        for (CycleResult c : cycles) {
            for (Eviction e : c.evictions()) {
                if (pods.contains(e.pod()) || job.equals(e.forPodGroup())) {
                    out.add(new Step(c.cycle(), e.action(), e.pod(), e.node(), e.forPodGroup(), e.rule()));
                }
            }
            for (Binding b : c.bindings()) {
                if (pods.contains(b.pod())) out.add(new Step(c.cycle(), "bind", b.pod(), b.node(), null, b.rule()));
            }
        }
        return out;
    }

    /** The rules that fired on the subject, its PodGroup, its pods and its queue in the cycle being explained. */
    private static Map<String, List<String>> rulesFired(List<CycleResult> cycles, int cycle, String self,
                                                        List<PodSpec> members, String job, String queue) {
        CycleResult explained = null;
        for (CycleResult c : cycles) if (c.cycle() <= cycle) explained = c;
        if (explained == null && !cycles.isEmpty()) explained = cycles.get(0);
        List<String> subjects = new ArrayList<>();
        subjects.add(self);
        if (!self.equals("PodGroup " + job)) subjects.add("PodGroup " + job);
        for (PodSpec m : members) subjects.add("Pod " + m.key());
        if (queue != null) subjects.add("Queue " + queue);
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (explained == null) return out;
        for (String s : subjects) {
            List<String> rules = explained.rulesFired().getOrDefault(s, List.of());
            if (!rules.isEmpty()) out.put(s, List.copyOf(rules));
        }
        return out;
    }

    private static Verdict podVerdict(ClusterReplay replay, PodSpec pod, List<Step> steps, PodGroupStatus status,
                                      List<NodeGap> closest) {
        int last = lastCycle(replay);
        String node = replay.finalPlacement().get(pod.key());
        int evictedIn = replay.evictedIn(pod.key());
        if (node == null && evictedIn > 0) {
            Eviction e = eviction(replay.cycles(), pod.key());
            return new Verdict("Evicted from " + e.node() + " in cycle " + evictedIn, e.reason(), e.rule(), evictedIn);
        }
        if (node != null) {
            Step bind = steps.stream().filter(s -> s.action().equals("bind") && s.pod().equals(pod.key()))
                    .reduce((a, b) -> b).orElse(null);
            List<Step> madeRoom = steps.stream().filter(s -> !s.action().equals("bind")).toList();
            if (bind == null) return new Verdict("Running on " + node, "already running on " + node + " before the first cycle", null, 1);
            String reason = "bound to " + node + " in cycle " + bind.cycle() + ", when its gang could start"
                    + roomMade(madeRoom) + placement(replay, pod, node, bind.cycle());
            return new Verdict("Running on " + node, reason, bind.rule(), madeRoom.isEmpty() ? bind.cycle() : madeRoom.get(0).cycle());
        }
        if (!replay.answers(pod)) {
            return new Verdict("Pending", "not scheduled by Arbiter: spec.schedulerName is \"" + pod.schedulerName() + "\"",
                    null, last);
        }
        String missing = status == null ? dev.arbiter.manifest.Mistakes.podGroupMissing(pod, replay.start().podGroups()) : null;
        if (missing != null) return new Verdict("Pending", missing, null, last);
        String reason = status == null ? "not yet seen by a cycle" : withQueueSuggestion(replay, replay.queueOf(pod), status.reason());
        return new Verdict("Pending", withClosest(reason, closest), status == null ? null : status.rule(), last);
    }

    /**
     * {@code reason} with a "did you mean" for a queue that does not exist: after the words saying so, or before the
     * reason when it does not say so; unchanged when the queue exists or no queue is clearly meant.
     */
    private static String withQueueSuggestion(ClusterReplay replay, String queue, String reason) {
        List<String> names = replay.start().queues().stream().map(dev.arbiter.model.QueueSpec::name).toList();
        return dev.arbiter.manifest.Mistakes.withQueueSuggestion(reason, queue, names);
    }

    private static Verdict groupVerdict(ClusterReplay replay, String job, List<Step> steps, PodGroupStatus status,
                                        Gang gang, List<NodeGap> closest) {
        int last = lastCycle(replay);
        List<Step> evictedMembers = steps.stream().filter(s -> !s.action().equals("bind") && !job.equals(s.forPodGroup())).toList();
        List<Step> madeRoom = steps.stream().filter(s -> !s.action().equals("bind") && job.equals(s.forPodGroup())).toList();
        List<Step> binds = steps.stream().filter(s -> s.action().equals("bind")).toList();
        String phase = status == null ? "Pending" : status.phase();
        String outcome = phase + ": " + gang.running() + " of " + gang.members() + " running, minMember " + gang.minMember();
        if (status != null && status.reason() != null) {
            int cycle = !madeRoom.isEmpty() ? madeRoom.get(madeRoom.size() - 1).cycle() : last;
            String reason = withQueueSuggestion(replay, replay.group(job) == null ? null : replay.group(job).queue(), status.reason());
            return new Verdict(outcome, withClosest(reason, closest), status.rule(), cycle);
        }
        if (!evictedMembers.isEmpty()) {
            Step e = evictedMembers.get(evictedMembers.size() - 1);
            Eviction ev = eviction(replay.cycles(), e.pod());
            String reason = evictedMembers.size() + " member(s) evicted in cycle " + e.cycle() + ": " + ev.reason();
            return new Verdict(outcome, reason, e.rule(), e.cycle());
        }
        if (!binds.isEmpty()) {
            Step b = binds.get(binds.size() - 1);
            String reason = "started in cycle " + b.cycle() + " with " + gang.running() + " of minMember " + gang.minMember()
                    + roomMade(madeRoom);
            return new Verdict(outcome, reason, b.rule(), madeRoom.isEmpty() ? b.cycle() : madeRoom.get(0).cycle());
        }
        return new Verdict(outcome, "running since before the first cycle", null, 1);
    }

    /**
     * Where the pod could have gone when its binding cycle started: e.g. {@code "; node-3 had mars-tech.com/gpu 8
     * free, 2 of 4 nodes had room for it"} (room counted for the pod alone; the cycle's scoring chose among them).
     */
    private static String placement(ClusterReplay replay, PodSpec pod, String node, int cycle) {
        Map<NodeSpec, Resources> free = replay.freeAfter(replay.indexOf(cycle) - 1, cycle);
        int room = 0;
        Resources onChosen = null;
        for (Map.Entry<NodeSpec, Resources> e : free.entrySet()) {
            if (passesPredicates(pod, e.getKey()) && pod.requests().fitsIn(e.getValue())) room++;
            if (e.getKey().name().equals(node)) onChosen = e.getValue();
        }
        if (onChosen == null) return "";
        Resources shown = onChosen.onlyDimensionsOf(withoutPodSlots(pod.requests()));
        return "; " + node + " had " + (shown.isEmpty() ? "room" : lacks(shown) + " free") + ", " + room + " of " + free.size()
                + " nodes had room for it";
    }

    /** {@code r} without the {@code pods} dimension (a node's pod slots, not worth showing). */
    private static Resources withoutPodSlots(Resources r) {
        Map<String, Long> m = new LinkedHashMap<>(r.asMilliMap());
        m.remove("pods");
        return Resources.ofMilli(m);
    }

    private static String roomMade(List<Step> evictions) {
        if (evictions.isEmpty()) return "";
        Step first = evictions.get(0);
        return ", after " + first.action() + " evicted " + evictions.size() + " pod(s) in cycle " + first.cycle();
    }

    private static Eviction eviction(List<CycleResult> cycles, String pod) {
        Eviction found = null;
        for (CycleResult c : cycles) for (Eviction e : c.evictions()) if (e.pod().equals(pod)) found = e;
        return found;
    }

    private static int lastCycle(ClusterReplay replay) {
        List<CycleResult> cs = replay.cycles();
        return cs.isEmpty() ? 0 : cs.get(cs.size() - 1).cycle();
    }

    private static String withClosest(String reason, List<NodeGap> closest) {
        if (closest.isEmpty()) return reason;
        NodeGap g = closest.get(0);
        String where = g.node() == null ? g.note()
                : g.shortfall().isEmpty() ? "closest node " + g.node() + " has room for " + g.pod()
                : "closest node " + g.node() + " lacks " + lacks(g.shortfall());
        return reason == null ? where : reason + "; " + where;
    }

    /** e.g. {@code nvidia.com/gpu 8, cpu 4} (accelerators first). */
    static String lacks(Resources r) {
        StringBuilder sb = new StringBuilder();
        for (String d : dimensions(r)) sb.append(sb.length() == 0 ? "" : ", ").append(d).append(' ').append(r.asQuantities().get(d));
        return sb.toString();
    }

    /**
     * The rules that fired in the last cycle on the pods still running in the other queues of {@code shares}: what
     * the policy said about the pods a pending job would need to displace. Rule → number of pods.
     */
    private static Map<String, Integer> holderRules(ClusterReplay replay, List<Share> shares, String ownQueue) {
        if (replay.cycles().isEmpty()) return Map.of();
        CycleResult last = replay.cycles().get(replay.cycles().size() - 1);
        Set<String> queues = new LinkedHashSet<>();
        for (Share s : shares) if (!s.queue().equals(ownQueue)) queues.add(s.queue());
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String pod : replay.finalPlacement().keySet()) {
            PodSpec p = replay.pod(pod);
            if (p == null || !queues.contains(replay.queueOf(p))) continue;
            for (String rule : last.rulesFiredOn("Pod", pod)) out.merge(rule, 1, Integer::sum);
        }
        return out;
    }

    // ---- numbers ----------------------------------------------------------------------------------------------

    /**
     * The queue's numbers in the deciding cycle, and those of the queues on the other side of its evictions; for a
     * pending subject, also every queue holding what it asks for (who has the capacity, against what it deserves).
     */
    private static List<Share> shares(ClusterReplay replay, int cycle, String queue, List<Step> steps, List<PodSpec> focus,
                                      boolean pending) {
        LinkedHashSet<String> queues = new LinkedHashSet<>();
        if (queue != null) queues.add(queue);
        for (Step s : steps) {
            if (s.action().equals("bind") || s.cycle() != cycle) continue;
            PodSpec victim = replay.pod(s.pod());
            if (victim != null && replay.queueOf(victim) != null) queues.add(replay.queueOf(victim));
            PodGroupSpec forGroup = replay.group(s.forPodGroup());
            if (forGroup != null) queues.add(forGroup.queue());
        }
        CycleResult c = replay.cycles().stream().filter(x -> x.cycle() == cycle).findFirst().orElse(null);
        if (c == null) return List.of();
        Resources wanted = Resources.NONE;
        for (PodSpec p : focus) wanted = wanted.add(p.requests());
        if (pending) {
            for (QueueStatus st : c.queues()) {
                for (String d : dimensions(wanted)) if (!d.equals("pods") && st.allocated().milli(d) > 0) queues.add(st.queue());
            }
        }
        List<Share> out = new ArrayList<>();
        Map<String, Resources> held = heldForNominated(replay, c);
        for (String q : queues) {
            QueueStatus st = c.queues().stream().filter(x -> x.queue().equals(q)).findFirst().orElse(null);
            if (st == null) continue;
            Resources before = replay.allocatedAfter(q, replay.indexOf(cycle) - 1);
            for (String d : dimensions(wanted)) {
                if (d.equals("pods")) continue;
                out.add(new Share(q, d, st.deserved().milli(d), before.milli(d), st.allocated().milli(d),
                        held.getOrDefault(q, Resources.NONE).milli(d)));
            }
        }
        return out;
    }

    /**
     * Per queue: the requests of the pods the cycle nominated (their room is being made by evictions), which the
     * queue's allocation already counts although they are not bound; a child queue's also count for its ancestors.
     */
    private static Map<String, Resources> heldForNominated(ClusterReplay replay, CycleResult c) {
        Map<String, String> parents = new java.util.HashMap<>();
        for (QueueStatus st : c.queues()) parents.put(st.queue(), st.parent());
        Map<String, Resources> out = new java.util.HashMap<>();
        for (dev.arbiter.decision.Nomination n : c.nominations()) {
            PodSpec p = replay.pod(n.pod());
            if (p == null) continue;
            String q = replay.queueOf(p);
            for (int depth = 0; q != null && depth <= parents.size(); depth++, q = parents.get(q)) {
                out.merge(q, p.requests(), Resources::add);
            }
        }
        return out;
    }

    private static Gang gang(ClusterReplay replay, List<PodSpec> members, PodGroupStatus status, PodGroupSpec group) {
        int minMember = status != null ? status.minMember() : group != null ? group.minMember() : 1;
        Map<String, String> placed = replay.finalPlacement();
        int running = 0;
        List<PodSpec> pending = new ArrayList<>();
        for (PodSpec m : members) {
            if (placed.containsKey(m.key())) running++;
            else if (replay.evictedIn(m.key()) == 0) pending.add(m);
        }
        Map<NodeSpec, Resources> free = replay.freeAtEnd();
        int placeable = running;
        for (PodSpec p : pending) {
            NodeSpec best = null;
            for (Map.Entry<NodeSpec, Resources> e : free.entrySet()) {
                if (!passesPredicates(p, e.getKey()) || !p.requests().fitsIn(e.getValue())) continue;
                if (best == null || e.getValue().dominantShare(best.allocatable()) < free.get(best).dominantShare(best.allocatable())) {
                    best = e.getKey();
                }
            }
            if (best != null) {
                free.put(best, free.get(best).subtract(p.requests()));
                placeable++;
            }
        }
        return new Gang(minMember, members.size(), running, placeable);
    }

    /** For each pending pod: the usable node with the fewest short dimensions, then the smallest relative shortfall. */
    private static List<NodeGap> closest(ClusterReplay replay, List<PodSpec> focus) {
        Map<String, String> placed = replay.finalPlacement();
        Map<NodeSpec, Resources> free = replay.freeAtEnd();
        List<NodeGap> out = new ArrayList<>();
        for (PodSpec p : focus) {
            if (placed.containsKey(p.key()) || replay.evictedIn(p.key()) > 0) continue;
            NodeSpec best = null;
            Resources bestShort = null;
            for (Map.Entry<NodeSpec, Resources> e : free.entrySet()) {
                if (!passesPredicates(p, e.getKey())) continue;
                Resources s = p.requests().shortfall(e.getValue());
                if (best == null || closer(s, e.getKey(), bestShort, best)) {
                    best = e.getKey();
                    bestShort = s;
                }
            }
            out.add(best == null
                    ? new NodeGap(p.key(), null, Resources.NONE, "no node passes " + p.key() + "'s node selector, node affinity,"
                            + " taints and cordons")
                    : new NodeGap(p.key(), best.name(), bestShort, null));
        }
        return out;
    }

    private static boolean closer(Resources s, NodeSpec n, Resources bestShort, NodeSpec best) {
        if (s.size() != bestShort.size()) return s.size() < bestShort.size();
        double a = relative(s, n), b = relative(bestShort, best);
        if (a != b) return a < b;
        return n.name().compareTo(best.name()) < 0;
    }

    private static double relative(Resources shortfall, NodeSpec n) {
        double sum = 0;
        for (int i = 0; i < shortfall.size(); i++) {
            long cap = n.allocatable().milli(shortfall.name(i));
            sum += cap > 0 ? (double) shortfall.milliAt(i) / cap : 1.0;
        }
        return sum;
    }

    /**
     * The static checks kube-scheduler and Arbiter apply before capacity: cordon (unless tolerated), nodeSelector,
     * required node affinity, taints; never for a pod with scheduling gates or needs Arbiter does not evaluate. (The
     * rules that depend on other pods are the engine's; its reason, in kube-scheduler's words, is the explanation's.)
     */
    public static boolean passesPredicates(PodSpec p, NodeSpec n) {
        if (!p.placement().schedulingGates().isEmpty() || !p.placement().notEvaluated().isEmpty()) return false;
        Taint cordon = new Taint("node.kubernetes.io/unschedulable", "", "NoSchedule");
        if (n.unschedulable() && p.tolerations().stream().noneMatch(tol -> tol.tolerates(cordon))) return false;
        for (Map.Entry<String, String> e : p.nodeSelector().entrySet()) {
            if (!e.getValue().equals(n.labels().get(e.getKey()))) return false;
        }
        if (!p.placement().nodeAffinity().requiredMatches(n)) return false;
        for (Taint t : n.taints()) {
            if (!"NoSchedule".equals(t.effect()) && !"NoExecute".equals(t.effect())) continue;
            boolean tolerated = false;
            for (Toleration tol : p.tolerations()) tolerated |= tol.tolerates(t);
            if (!tolerated) return false;
        }
        return true;
    }

    /** The dimensions of {@code r}, accelerators first, then by name. */
    static List<String> dimensions(Resources r) {
        return dimensions(r.asMilliMap().keySet());
    }

    /** Resource names, accelerators first, then by name. */
    static List<String> dimensions(java.util.Collection<String> names) {
        TreeSet<String> dims = new TreeSet<>(Comparator.comparing((String d) -> !isAccelerator(d)).thenComparing(d -> d));
        dims.addAll(names);
        return new ArrayList<>(dims);
    }

    static boolean isAccelerator(String dim) {
        return dim.contains("gpu") || dim.contains("npu") || dim.contains("tpu") || dim.contains("neuron");
    }
}
