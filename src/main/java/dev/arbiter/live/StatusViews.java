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
     * null when it is running.
     */
    static String unschedulableMessage(PodGroupStatus s) {
        if (s.reason() == null) return null;
        int total = s.running() + s.pending();
        return s.pending() + "/" + total + " tasks unschedulable: " + s.reason()
                + (s.rule() == null ? "" : " (rule: " + s.rule() + ")");
    }

    /**
     * The status a PodGroup should carry: the cycle's phase and running count, succeeded/failed counted from its
     * pods, conditions of other types kept, and exactly one of ours: {@code Unschedulable} with the reason while not
     * running, {@code Scheduled} once running. A condition that did not change keeps its transition time and id.
     * A gang whose members have all finished is {@code Completed}, with neither condition.
     */
    static VolcanoPodGroup.Status podGroup(PodGroupStatus s, int succeeded, int failed, VolcanoPodGroup.Status current,
                                           Instant now) {
        VolcanoPodGroup.Status out = new VolcanoPodGroup.Status();
        if (current != null) current.extra().forEach(out::putExtra);
        out.phase = s.phase();
        out.running = s.running();
        out.succeeded = succeeded;
        out.failed = failed;
        out.conditions = new ArrayList<>();
        List<VolcanoPodGroup.Condition> previous = current == null || current.conditions == null ? List.of() : current.conditions;
        for (VolcanoPodGroup.Condition c : previous) {
            if (!UNSCHEDULABLE.equals(c.type) && !SCHEDULED.equals(c.type)) out.conditions.add(c);
        }
        if (s.running() == 0 && s.pending() == 0 && succeeded + failed > 0) {
            // Every member has finished: Volcano's Completed, with no condition of ours.
            out.phase = "Completed";
            return out;
        }
        String message = unschedulableMessage(s);
        VolcanoPodGroup.Condition ours = new VolcanoPodGroup.Condition();
        ours.status = "True";
        if (message != null) {
            ours.type = UNSCHEDULABLE;
            ours.reason = s.phase().equals("Pending") ? "NotInqueue" : "NotEnoughResources";
            ours.message = message;
        } else {
            ours.type = SCHEDULED;
            ours.reason = "GangScheduled";
            // A gang with a network topology says where it runs: "4/4 tasks running in domain rack-3".
            ours.message = s.running() + "/" + s.minMember() + " tasks running"
                    + (s.domain() == null ? "" : " in domain " + s.domain());
        }
        VolcanoPodGroup.Condition before = previous.stream().filter(c -> ours.type.equals(c.type)).findFirst().orElse(null);
        boolean sameTransition = before != null && Objects.equals(before.status, ours.status);
        ours.lastTransitionTime = sameTransition && before.lastTransitionTime != null ? before.lastTransitionTime : now.toString();
        ours.transitionID = sameTransition && before.transitionID != null ? before.transitionID : UUID.randomUUID().toString();
        out.conditions.add(ours);
        return out;
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

    /** Succeeded and failed members of a gang, counted from the pods; {@code [succeeded, failed]}. */
    static int[] finishedCounts(List<PodSpec> pods, String groupKey) {
        int[] out = new int[2];
        for (PodSpec p : pods) {
            if (!groupKey.equals(groupKey(p))) continue;
            if ("Succeeded".equals(p.phase())) out[0]++;
            else if ("Failed".equals(p.phase())) out[1]++;
        }
        return out;
    }

    /**
     * The status a Queue should carry: state, allocated quantities and job counts by phase; what else the current
     * status holds (unknown and completed counts, reservations) is kept.
     */
    static VolcanoQueue.Status queue(QueueStatus q, VolcanoQueue.Status current) {
        VolcanoQueue.Status out = new VolcanoQueue.Status();
        if (current != null) {
            current.extra().forEach(out::putExtra);
            out.unknown = current.unknown;
            out.completed = current.completed;
        }
        out.state = q.state();
        out.allocated = quantities(q.allocated());
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
        String group = p.groupName();
        return p.jobId();
    }
}
