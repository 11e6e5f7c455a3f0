package dev.arbiter.live;

import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Pure functions from a cycle's decisions to the status objects the actuator writes, and the equality that decides
 * whether a write is needed at all (timestamps and transition ids do not count, so an unchanged gang costs no write).
 */
final class StatusViews {
    static final String UNSCHEDULABLE = "Unschedulable";
    static final String SCHEDULED = "Scheduled";

    private StatusViews() {}

    /**
     * The one-line explanation of a gang that is not running, e.g.
     * {@code "2/4 tasks unschedulable: gang of 4 needs 4 tasks, 2 placeable: Insufficient mars-tech.com/gpu"};
     * null when it is running. It is {@linkplain #stable stable}: the same situation gives the same words in every
     * cycle, so its FailedScheduling events aggregate and an unchanged gang costs no status write.
     */
    static String unschedulableMessage(PodGroupStatus s) {
        if (s.reason() == null) return null;
        int total = s.running() + s.pending();
        return s.pending() + "/" + total + " tasks unschedulable: " + stable(s.reason())
                + (s.rule() == null ? "" : " (rule: " + s.rule() + ")");
    }

    /**
     * The engine's reasons with what moves with the clock taken out: the countdown to the first minimum runtime's end
     * ({@code "; the first minimum runtime ends in 53s"}) and a protected pod's age ({@code "has run 20s, less than the
     * minimum runtime of 60s"} becomes {@code "has run less than the minimum runtime of 60s"}). A message that changed
     * every cycle could not be aggregated by the API server (one Event per pod per cycle) and would rewrite the
     * PodGroup's condition every cycle.
     */
    static String stable(String reason) {
        if (reason == null) return null;
        String out = COUNTDOWN.matcher(reason).replaceAll("");
        return AGE.matcher(out).replaceAll("has run less than");
    }

    private static final java.util.regex.Pattern COUNTDOWN = java.util.regex.Pattern.compile(
            ";? ?the first minimum runtime ends in \\d+s");
    private static final java.util.regex.Pattern AGE = java.util.regex.Pattern.compile("has run \\d+s, less than");

    /**
     * A gang's members as the API server shows them, counted as Volcano's {@code jobStatus} counts them:
     * {@code running} pods whose phase is Running (and not terminating); {@code scheduled} pods placed on a node
     * (bound, whatever their phase, terminating ones included, plus finished ones) or whose binding the API server
     * accepted though the informer does not show it yet; {@code succeeded} and {@code failed} by phase. A binding
     * merely issued counts nowhere. Example: 4 members, 3 bindings accepted, 1 of them started by its kubelet:
     * running 1, scheduled 3.
     */
    record Members(int running, int scheduled, int succeeded, int failed) {
        static final Members NONE = new Members(0, 0, 0, 0);

        int finished() {
            return succeeded + failed;
        }
    }

    /**
     * Counts {@code pods} (the informer's records, no assumptions) as {@link Members}; {@code bindAccepted} says
     * which pods' bindings the API server has accepted.
     */
    static Members members(Iterable<PodSpec> pods, java.util.function.Predicate<String> bindAccepted) {
        int running = 0, scheduled = 0, succeeded = 0, failed = 0;
        for (PodSpec p : pods) {
            if ("Succeeded".equals(p.phase())) {
                succeeded++;
                scheduled++;
            } else if ("Failed".equals(p.phase())) {
                failed++;
                scheduled++;
            } else if (p.isBound()) {
                scheduled++;
                if ("Running".equals(p.phase()) && !p.terminating()) running++;
            } else if (!p.terminating() && bindAccepted.test(p.key())) {
                scheduled++;
            }
        }
        return new Members(running, scheduled, succeeded, failed);
    }

    /**
     * The phase a PodGroup shows, as Volcano's {@code getPodGroupPhase}: Running once at least minMember members
     * are scheduled ({@link Members}), Completed when every scheduled member has finished; before that the cycle's
     * phase, Inqueue where the cycle already counts the gang running (its bindings not yet accepted). So the phase
     * says what the API server holds, never what was merely planned.
     */
    static String phase(PodGroupStatus s, Members m) {
        if (m.scheduled() > 0 && m.scheduled() >= s.minMember()) return m.scheduled() == m.finished() ? "Completed" : "Running";
        return "Running".equals(s.phase()) ? "Inqueue" : s.phase();
    }

    /**
     * The status a PodGroup should carry: phase and counts from its {@link Members} ({@link #phase}), conditions of
     * other types kept, and ours: {@code Unschedulable} with the reason while the cycle cannot start it,
     * {@code Scheduled} once the API server holds it Running. {@code Scheduled} then stays, beside
     * {@code Unschedulable} (as Volcano keeps one condition per type), for as long as any member is placed: it says
     * the gang has run whole, which {@link StrandedGangs} reads to tell a gang that lost a member from one a cut-off
     * bind left below minMember. A condition that did not change keeps its transition time and id. A Completed gang
     * carries neither condition; a gang the cycle placed whose bindings the API server has not yet accepted keeps the
     * conditions it had.
     */
    static VolcanoPodGroup.Status podGroup(PodGroupStatus s, Members m, VolcanoPodGroup.Status current, Instant now) {
        VolcanoPodGroup.Status out = new VolcanoPodGroup.Status();
        if (current != null) current.extra().forEach(out::putExtra);
        out.phase = phase(s, m);
        out.running = m.running();
        out.succeeded = m.succeeded();
        out.failed = m.failed();
        out.conditions = new ArrayList<>();
        List<VolcanoPodGroup.Condition> previous = current == null || current.conditions == null ? List.of() : current.conditions;
        String message = unschedulableMessage(s);
        boolean placedNotAccepted = message == null && !"Running".equals(out.phase);
        for (VolcanoPodGroup.Condition c : previous) {
            boolean ours = UNSCHEDULABLE.equals(c.type) || SCHEDULED.equals(c.type);
            boolean ranWhole = SCHEDULED.equals(c.type) && "True".equals(c.status) && message != null && m.scheduled() > 0;
            if (!ours || placedNotAccepted && !"Completed".equals(out.phase) || ranWhole && !"Completed".equals(out.phase)) {
                out.conditions.add(c);
            }
        }
        if ("Completed".equals(out.phase) || placedNotAccepted) return out;
        VolcanoPodGroup.Condition ours = new VolcanoPodGroup.Condition();
        ours.status = "True";
        if (message != null) {
            ours.type = UNSCHEDULABLE;
            ours.reason = s.phase().equals("Pending") ? "NotInqueue" : "NotEnoughResources";
            ours.message = message;
        } else {
            ours.type = SCHEDULED;
            ours.reason = "GangScheduled";
            // A gang with a network topology says where it runs: "4/4 tasks scheduled in domain rack-3".
            ours.message = m.scheduled() + "/" + s.minMember() + " tasks scheduled"
                    + (s.domain() == null ? "" : " in domain " + s.domain());
        }
        VolcanoPodGroup.Condition before = previous.stream().filter(c -> ours.type.equals(c.type)).findFirst().orElse(null);
        boolean sameTransition = before != null && Objects.equals(before.status, ours.status);
        ours.lastTransitionTime = sameTransition && before.lastTransitionTime != null ? before.lastTransitionTime : now.toString();
        ours.transitionID = sameTransition && before.transitionID != null ? before.transitionID : UUID.randomUUID().toString();
        out.conditions.add(ours);
        return out;
    }

    /** kube-scheduler's condition on a {@code scheduling.k8s.io} PodGroup: its gang has been scheduled once. */
    static final String INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled";

    /** True when an upstream PodGroup's conditions hold {@code PodGroupInitiallyScheduled=True}. */
    static boolean initiallyScheduled(List<Map<String, Object>> conditions) {
        Map<String, Object> c = condition(conditions, INITIALLY_SCHEDULED);
        return c != null && "True".equals(c.get("status"));
    }

    private static Map<String, Object> condition(List<Map<String, Object>> conditions, String type) {
        if (conditions == null) return null;
        for (Map<String, Object> c : conditions) if (type.equals(c.get("type"))) return c;
        return null;
    }

    /**
     * The {@code PodGroupInitiallyScheduled} condition an upstream ({@code scheduling.k8s.io}) PodGroup should carry,
     * as kube-scheduler's {@code updatePodGroupCondition} writes it: True, reason {@code Scheduled}, once the API server
     * holds {@code minCount} of its members placed; False, reason {@code Unschedulable}, with the one-line reason
     * ({@link #unschedulableMessage}) while the cycle cannot start it. Null when there is nothing to write: the
     * condition is True already (it never goes back to False), or its placed members' bindings are not yet accepted.
     * A condition whose status does not change keeps its {@code lastTransitionTime}.
     */
    static Map<String, Object> initiallyScheduledCondition(PodGroupStatus s, Members m, List<Map<String, Object>> current,
                                                           Instant now) {
        if (initiallyScheduled(current)) return null;
        String message = unschedulableMessage(s);
        boolean scheduled = m.scheduled() > 0 && m.scheduled() >= s.minMember();
        if (!scheduled && message == null) return null;
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("type", INITIALLY_SCHEDULED);
        out.put("status", scheduled ? "True" : "False");
        out.put("reason", scheduled ? SCHEDULED : UNSCHEDULABLE);
        out.put("message", scheduled ? m.scheduled() + " pods scheduled (minCount " + s.minMember() + ")" : message);
        Map<String, Object> before = condition(current, INITIALLY_SCHEDULED);
        boolean sameTransition = before != null && Objects.equals(before.get("status"), out.get("status"))
                && before.get("lastTransitionTime") != null;
        out.put("lastTransitionTime", sameTransition ? before.get("lastTransitionTime")
                : now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        return out;
    }

    /** Whether two conditions say the same: type, status, reason and message (not when they changed). */
    static boolean sameCondition(Map<String, Object> a, Map<String, Object> b) {
        if (a == null || b == null) return a == b;
        for (String k : List.of("type", "status", "reason", "message")) if (!Objects.equals(a.get(k), b.get(k))) return false;
        return true;
    }

    /** The condition of {@code desired}'s type among {@code current}, or null. */
    static Map<String, Object> sameType(List<Map<String, Object>> current, Map<String, Object> desired) {
        return condition(current, String.valueOf(desired.get("type")));
    }

    /** True when {@code status} (as the API server holds it) says the gang has run whole: a Scheduled=True condition. */
    static boolean ranWhole(VolcanoPodGroup.Status status) {
        if (status == null || status.conditions == null) return false;
        for (VolcanoPodGroup.Condition c : status.conditions) {
            if (SCHEDULED.equals(c.type) && "True".equals(c.status)) return true;
        }
        return false;
    }

    static boolean samePodGroup(VolcanoPodGroup.Status a, VolcanoPodGroup.Status b) {
        if (a == null || b == null) return a == b;
        return Objects.equals(a.phase, b.phase) && Objects.equals(zero(a.running), zero(b.running))
                && Objects.equals(zero(a.succeeded), zero(b.succeeded)) && Objects.equals(zero(a.failed), zero(b.failed))
                && conditionKeys(a).equals(conditionKeys(b));
    }

    private static List<List<String>> conditionKeys(VolcanoPodGroup.Status s) {
        List<List<String>> out = new ArrayList<>();
        if (s.conditions != null) {
            for (VolcanoPodGroup.Condition c : s.conditions) {
                out.add(java.util.Arrays.asList(c.type, c.status, c.reason, c.message));
            }
        }
        return out;
    }

    /**
     * The status a Queue should carry: state, allocated quantities with the number of pods allocated in its subtree
     * ({@code pods}, as Volcano counts its tasks' {@code pods: 1} there), and job counts by phase; what else the
     * current status holds (unknown and completed counts, reservations) is kept.
     */
    static VolcanoQueue.Status queue(QueueStatus q, int allocatedPods, VolcanoQueue.Status current) {
        VolcanoQueue.Status out = new VolcanoQueue.Status();
        if (current != null) {
            current.extra().forEach(out::putExtra);
            out.unknown = current.unknown;
            out.completed = current.completed;
        }
        out.state = q.state();
        out.allocated = quantities(q.allocated().without("pods").add(Resources.of("pods", allocatedPods)));
        out.pending = q.pendingJobs();
        out.inqueue = q.inqueueJobs();
        out.running = q.runningJobs();
        return out;
    }

    static boolean sameQueue(VolcanoQueue.Status a, VolcanoQueue.Status b) {
        if (a == null || b == null) return a == b;
        return Objects.equals(a.state, b.state) && resources(a.allocated).equals(resources(b.allocated))
                && Objects.equals(zero(a.pending), zero(b.pending)) && Objects.equals(zero(a.inqueue), zero(b.inqueue))
                && Objects.equals(zero(a.running), zero(b.running));
    }

    private static Map<String, Quantity> quantities(Resources r) {
        Map<String, Quantity> out = new TreeMap<>();
        r.asQuantities().forEach((k, v) -> out.put(k, new Quantity(v)));
        return out;
    }

    private static Resources resources(Map<String, Quantity> q) {
        if (q == null) return Resources.NONE;
        Map<String, Long> milli = new TreeMap<>();
        q.forEach((k, v) -> milli.put(k, dev.arbiter.model.Quantity.parseAmount(k, v.toString())));
        return Resources.ofMilli(milli);
    }

    private static int zero(Integer i) {
        return i == null ? 0 : i;
    }

    /**
     * The PodGroup key the scheduler files a pod under: its group-name annotation, or for a pod without one the
     * implicit gang of one {@code podgroup-<pod>} (which has no object, so no status is written for it).
     */
    static String groupKey(PodSpec p) {
        return p.jobId();
    }
}
