package dev.arbiter.live;

import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gangs bound below their minMember that have never run whole, found in each cycle's snapshot (what the API server
 * says is bound, with this process's bindings in flight shown placed), not remembered from the failures that made
 * them: a rollback eviction that failed, a shutdown or a lost Lease that cut a gang's bindings off, another replica
 * that died mid-gang. So a new leader, or this process after it regains the Lease, finds them as well.
 *
 * <p>Such a gang holds resources without running. It gets {@value #GRACE_CYCLES} cycles for the engine to complete it
 * (its pending members bind when room exists); after that, each cycle evicts its bound members (and binds none of it)
 * until it is whole or gone. "Never run whole" is its PodGroup's status without a {@code Scheduled=True} condition
 * ({@link StatusViews#ranWhole}): a gang that ran whole and then lost a member (a node failed, a pod was deleted) is
 * left alone, as Volcano leaves it. A gang with a member bound for another scheduler is not judged.
 */
final class StrandedGangs {
    private static final Logger LOG = LoggerFactory.getLogger(StrandedGangs.class);
    static final int GRACE_CYCLES = 2;

    /** What the cycle must do about stranded gangs: members to evict now, gangs whose bindings wait. */
    record Plan(List<String> evict, Set<String> holdBindings) {
        static final Plan NONE = new Plan(List.of(), Set.of());
    }

    /** A gang's members as a snapshot shows them. */
    private static final class Members {
        final List<String> bound = new ArrayList<>();
        int finished;
        boolean foreign;
    }

    /** Per stranded gang, the cycles it has been seen so; kept across cycles, rebuilt from each snapshot. */
    private final Map<String, Integer> cycles = new ConcurrentHashMap<>();
    private final Predicate<String> ours;

    /** {@code ours} tells the scheduler names this scheduler answers. */
    StrandedGangs(Predicate<String> ours) {
        this.ours = ours;
    }

    int size() {
        return cycles.size();
    }

    /**
     * Judges every gang of {@code snapshot}: {@code ranWhole} tells, by PodGroup key, whether its status says it has
     * run whole; {@code evicting} which pods are already leaving.
     */
    Plan review(ClusterSnapshot snapshot, Predicate<String> ranWhole, Predicate<String> evicting) {
        Map<String, Integer> minMember = new HashMap<>();
        for (PodGroupSpec g : snapshot.podGroups()) {
            if (g.minMember() > 1) minMember.put(g.namespace() + "/" + g.name(), g.minMember());
        }
        Map<String, Members> gangs = new HashMap<>();
        if (!minMember.isEmpty()) {
            for (PodSpec p : snapshot.pods()) {
                // Pending pods, most of a large snapshot, count for nothing here.
                boolean finished = p.finished();
                if (!finished && (!p.isBound() || p.terminating())) continue;
                String group = StatusViews.groupKey(p);
                if (!minMember.containsKey(group)) continue;
                Members m = gangs.computeIfAbsent(group, g -> new Members());
                if (finished) {
                    m.finished++;
                } else {
                    m.bound.add(p.key());
                    if (!ours.test(p.schedulerName())) m.foreign = true;
                }
            }
        }
        List<String> evict = new ArrayList<>();
        Set<String> hold = new HashSet<>();
        Set<String> stranded = new HashSet<>();
        for (Map.Entry<String, Members> e : gangs.entrySet()) {
            String group = e.getKey();
            Members m = e.getValue();
            int min = minMember.get(group);
            if (m.foreign || m.bound.isEmpty() || m.bound.size() + m.finished >= min || ranWhole.test(group)) continue;
            stranded.add(group);
            int seen = cycles.merge(group, 1, Integer::sum);
            if (seen == 1) {
                LOG.atWarn().addKeyValue("podgroup", group).log("gang {} is half-bound ({} of minMember {} bound) and has never run whole: the next {} cycles may"
                        + " complete it, then its bound members are evicted", group, m.bound.size(), min, GRACE_CYCLES);
            }
            if (seen <= GRACE_CYCLES) continue;
            hold.add(group);
            for (String pod : m.bound) if (!evicting.test(pod)) evict.add(pod);
        }
        for (String group : new ArrayList<>(cycles.keySet())) {
            if (stranded.contains(group)) continue;
            cycles.remove(group);
            Members m = gangs.get(group);
            LOG.atInfo().addKeyValue("podgroup", group).log("gang {} is no longer half-bound ({} member(s) bound)", group, m == null ? 0 : m.bound.size());
        }
        return evict.isEmpty() && hold.isEmpty() ? Plan.NONE : new Plan(evict, hold);
    }
}
