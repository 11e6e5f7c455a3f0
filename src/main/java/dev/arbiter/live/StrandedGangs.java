package dev.arbiter.live;

import dev.arbiter.model.ClusterSnapshot;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gangs left half-bound because a member's bind failed and the rollback eviction of the bound members failed too.
 * Such a gang holds resources without running, so it gets {@value #GRACE_CYCLES} cycles for the engine to complete it
 * (the pending members bind when room exists); after that, each cycle evicts its bound members again (and binds
 * none of it) until it is whole or gone. A gang whose bound members reach minMember, or whose bound members are all
 * gone, is no longer stranded.
 */
final class StrandedGangs {
    private static final Logger LOG = LoggerFactory.getLogger(StrandedGangs.class);
    static final int GRACE_CYCLES = 2;

    private static final class Entry {
        final Set<String> members = new LinkedHashSet<>();
        int cycles;
    }

    /** What the cycle must do about stranded gangs: members to evict now, gangs whose bindings wait. */
    record Plan(List<String> evict, Set<String> holdBindings) {
        static final Plan NONE = new Plan(List.of(), Set.of());
    }

    private final Map<String, Entry> gangs = new ConcurrentHashMap<>();

    /** {@code members} of gang {@code group} are bound and could not be rolled back. */
    void add(String group, Collection<String> members) {
        Entry e = gangs.computeIfAbsent(group, g -> new Entry());
        synchronized (e) {
            e.members.addAll(members);
            e.cycles = 0;
        }
        LOG.warn("gang {} is half-bound ({} member(s) could not be rolled back): a later cycle completes it or evicts them",
                group, members.size());
    }

    int size() {
        return gangs.size();
    }

    /** Reviews every stranded gang against the cycle's snapshot; {@code evicting} tells which pods are already leaving. */
    Plan review(ClusterSnapshot snapshot, java.util.function.Predicate<String> evicting) {
        if (gangs.isEmpty()) return Plan.NONE;
        Map<String, Integer> bound = new HashMap<>();
        Map<String, PodSpec> pods = new HashMap<>();
        for (PodSpec p : snapshot.pods()) {
            String group = StatusViews.groupKey(p);
            if (!gangs.containsKey(group)) continue;
            pods.put(p.key(), p);
            if (p.isBound() && !p.terminating()) bound.merge(group, 1, Integer::sum);
        }
        Map<String, Integer> minMember = new HashMap<>();
        for (PodGroupSpec g : snapshot.podGroups()) {
            String key = g.namespace() + "/" + g.name();
            if (gangs.containsKey(key)) minMember.put(key, g.minMember());
        }
        List<String> evict = new ArrayList<>();
        Set<String> hold = new HashSet<>();
        for (Map.Entry<String, Entry> g : gangs.entrySet()) {
            Entry e = g.getValue();
            synchronized (e) {
                List<String> stillBound = new ArrayList<>();
                for (String m : e.members) {
                    PodSpec p = pods.get(m);
                    if (p != null && p.isBound() && !p.terminating()) stillBound.add(m);
                }
                int running = bound.getOrDefault(g.getKey(), 0);
                if (stillBound.isEmpty() || running >= minMember.getOrDefault(g.getKey(), 1)) {
                    gangs.remove(g.getKey());
                    LOG.info("gang {} is no longer stranded ({} member(s) bound)", g.getKey(), running);
                    continue;
                }
                e.cycles++;
                if (e.cycles <= GRACE_CYCLES) continue;
                hold.add(g.getKey());
                for (String m : stillBound) if (!evicting.test(m)) evict.add(m);
            }
        }
        return new Plan(evict, hold);
    }
}
