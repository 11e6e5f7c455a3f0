package dev.arbiter.engine.placement;

import dev.arbiter.decision.Refusal;

import dev.arbiter.engine.state.Job;
import dev.arbiter.engine.state.NodeState;
import dev.arbiter.engine.state.Task;

import dev.arbiter.model.HyperNodeSpec;
import dev.arbiter.model.NetworkTopology;
import dev.arbiter.model.Resources;
import dev.arbiter.policy.DomainChoice;
import dev.arbiter.policy.PolicySettings;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The cycle's network domains, and which of them a gang with a network topology may take, in the policy's order.
 *
 * <p>Domains come from two sources, both if present. Volcano's HyperNodes: each is a domain of its {@code tier}
 * holding the nodes its members select, directly or through member HyperNodes (a tree; a member that names a missing
 * HyperNode selects nothing, and a cycle of HyperNodes is cut where it closes). Node labels: the policy's
 * {@code topology.levels}, broadest first; each value of such a key is one domain, the last key being tier 1. A Kueue
 * level that is no policy level still makes domains, one per value of that label (tier 0: only named levels reach
 * it).
 *
 * <p>A gang asks by {@link NetworkTopology}: a hard gang may only start inside one allowed domain (of tier at most its
 * highest tier, or of its label level), a soft one prefers that. {@link #candidates} lists the allowed domains where
 * the gang could fit — those holding every running member and, on the nodes the gang may use, at least the free
 * resources its missing members request — in the order of {@code topology.choice}: by default best fit, the fullest
 * (least free of the gang's scarcest resource) first, so whole domains stay free. A gang's own placement inside a
 * domain is the node fitter's, confined to it ({@link NodeFitter#confine}).
 */
public final class NetworkDomains {
    /** One domain: a HyperNode, or one value of a label level. Compared by identity. */
    public static final class Domain {
        public final String name;
        public final int tier;
        /** The label key whose value this domain is, or null for a HyperNode. */
        final String level;
        final BitSet nodes;
        /** A set of nodes of the cycle's own ({@link #ofNodes}): {@code name} says why a node outside it is (a filter). */
        final boolean own;

        Domain(String name, int tier, String level, BitSet nodes) {
            this(name, tier, level, nodes, false);
        }

        private Domain(String name, int tier, String level, BitSet nodes, boolean own) {
            this.name = name;
            this.tier = tier;
            this.level = level;
            this.nodes = nodes;
            this.own = own;
        }

        /**
         * A set of nodes of the cycle's own that is no network domain, e.g. the nodes outside other jobs'
         * reservations: pods restricted to it ({@link NodeFitter#restrict}) see only its nodes, and a node outside it
         * is counted under {@code why} (e.g. {@code node(s) reserved for another job}).
         */
        public static Domain ofNodes(String why, BitSet nodes) {
            return new Domain(why, 0, null, nodes, true);
        }

        /** The indexes of its nodes (a copy). */
        public BitSet nodeSet() {
            return (BitSet) nodes.clone();
        }

        /** This domain's nodes that are also {@code other}'s, under this domain's name. */
        Domain within(Domain other) {
            BitSet both = (BitSet) nodes.clone();
            both.and(other.nodes);
            return new Domain(name, tier, level, both, own);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** An allowed domain, with what is free in it on the nodes a gang may use. */
    public record Fit(Domain domain, Resources free, Resources allocatable) {}

    private final List<NodeState> nodes;
    private final PolicySettings.Topology settings;
    /** Every domain of a tier (HyperNodes and policy levels), lowest tier first, then by name. */
    final List<Domain> all = new ArrayList<>();
    private final Map<String, List<Domain>> byLevel = new HashMap<>();
    private final Map<String, int[]> fullerFirst = new HashMap<>();

    public NetworkDomains(List<NodeState> nodes, List<HyperNodeSpec> hyperNodes, PolicySettings.Topology settings) {
        this.nodes = nodes;
        this.settings = settings;
        addHyperNodes(hyperNodes);
        for (String key : settings.levels()) byLevel.put(key, labelDomains(key, settings.tierOf(key)));
        for (List<Domain> level : byLevel.values()) all.addAll(level);
        all.sort(Comparator.<Domain>comparingInt(d -> d.tier).thenComparing(d -> d.name));
    }

    boolean isEmpty() {
        return all.isEmpty();
    }

    // ---- sources ------------------------------------------------------------------------------------------------

    private List<Domain> labelDomains(String key, int tier) {
        Map<String, BitSet> byValue = new TreeMap<>();
        for (NodeState n : nodes) {
            String v = n.spec.labels().get(key);
            if (v != null) byValue.computeIfAbsent(v, k -> new BitSet(nodes.size())).set(n.index);
        }
        List<Domain> out = new ArrayList<>();
        byValue.forEach((value, members) -> out.add(new Domain(value, tier, key, members)));
        return out;
    }

    private void addHyperNodes(List<HyperNodeSpec> hyperNodes) {
        if (hyperNodes.isEmpty()) return;
        Map<String, HyperNodeSpec> byName = new LinkedHashMap<>();
        for (HyperNodeSpec h : hyperNodes) byName.put(h.name(), h);
        Map<String, NodeState> nodeByName = new HashMap<>();
        for (NodeState n : nodes) nodeByName.put(n.name(), n);
        Map<String, BitSet> resolved = new HashMap<>();
        for (HyperNodeSpec h : hyperNodes) {
            BitSet members = resolve(h, byName, nodeByName, resolved, new HashSet<>());
            all.add(new Domain(h.name(), h.tier(), null, members));
        }
    }

    /** The nodes of {@code h}: its node members', and its HyperNode members' (a member met again on the way is cut). */
    private BitSet resolve(HyperNodeSpec h, Map<String, HyperNodeSpec> byName, Map<String, NodeState> nodeByName,
                           Map<String, BitSet> resolved, Set<String> path) {
        BitSet done = resolved.get(h.name());
        if (done != null) return done;
        path.add(h.name());
        BitSet out = new BitSet(nodes.size());
        for (HyperNodeSpec.Member m : h.members()) {
            Pattern p = m.regex() == null ? null : Pattern.compile(m.regex());
            if (m.type() == HyperNodeSpec.MemberType.NODE) {
                if (m.exactName() != null) {
                    NodeState n = nodeByName.get(m.exactName());
                    if (n != null) out.set(n.index);
                } else {
                    for (NodeState n : nodes) if (m.selects(n.name(), n.spec.labels(), p)) out.set(n.index);
                }
            } else {
                for (HyperNodeSpec child : byName.values()) {
                    if (path.contains(child.name()) || !m.selects(child.name(), Map.of(), p)) continue;
                    out.or(resolve(child, byName, nodeByName, resolved, path));
                }
            }
        }
        path.remove(h.name());
        resolved.put(h.name(), out);
        return out;
    }

    // ---- what a job asks ----------------------------------------------------------------------------------------

    /**
     * The job's network topology: its PodGroup's {@code spec.networkTopology}, else Kueue's topology annotation on
     * its first pending pod (or, with none pending, its first running one); null when it asks for none.
     */
    public NetworkTopology wanted(Job j) {
        if (j.networkTopology != null) return j.networkTopology;
        for (Task t : j.pending) return t.kueueTopology();
        for (Task t : j.running) return t.kueueTopology();
        return null;
    }

    /** The domains the topology allows: those of its label level, or of tier 1 up to its highest tier. */
    List<Domain> allowed(NetworkTopology want) {
        if (want.level() != null) return level(want.level());
        List<Domain> out = new ArrayList<>();
        for (Domain d : all) if (d.tier >= 1 && d.tier <= want.highestTier()) out.add(d);
        return out;
    }

    private List<Domain> level(String key) {
        return byLevel.computeIfAbsent(key, k -> labelDomains(k, 0));
    }

    /**
     * The allowed domains where the gang could start, in the policy's order: each holds every running member of the
     * job and, on the nodes {@code eligible} (those its pods' static constraints admit), free resources of at least
     * {@code need} in every dimension. A soft gang goes lowest tier first whatever the choice. Domains holding every
     * node the previous cycle nominated for the job come first (the room was made there).
     */
    public List<Fit> candidates(Job j, NetworkTopology want, Resources need, BitSet eligible) {
        List<Fit> out = new ArrayList<>();
        for (Fit f : measure(j, want, eligible)) if (need.fitsIn(f.free())) out.add(f);
        String dim = NodeFitter.primaryDimension(need);
        DomainChoice choice = settings.choice();
        Comparator<Fit> byFree = Comparator.comparingLong(f -> f.free().milli(dim));
        Comparator<Fit> byTier = Comparator.comparingInt(f -> f.domain().tier);
        Comparator<Fit> order = switch (choice) {
            case BEST_FIT -> byFree.thenComparing(byTier);
            case LOWEST_TIER_FIRST -> byTier.thenComparing(byFree);
            case SPREAD -> byFree.reversed().thenComparing(byTier);
        };
        if (!want.hard() && choice != DomainChoice.LOWEST_TIER_FIRST) order = byTier.thenComparing(order);
        BitSet nominated = nominatedNodes(j);
        if (!nominated.isEmpty()) {
            order = Comparator.<Fit, Boolean>comparing(f -> !contains(f.domain(), nominated)).thenComparing(order);
        }
        out.sort(order.thenComparing(f -> f.domain().name));
        return out;
    }

    /** Each allowed domain that holds the job's running members, with its free and allocatable on eligible nodes. */
    public List<Fit> measure(Job j, NetworkTopology want, BitSet eligible) {
        BitSet running = new BitSet(nodes.size());
        for (Task t : j.running) if (!t.evicted) running.set(t.node.index);
        List<Fit> out = new ArrayList<>();
        for (Domain d : allowed(want)) {
            if (!running.isEmpty() && !contains(d, running)) continue;
            Resources.Sum free = new Resources.Sum();
            Resources.Sum alloc = new Resources.Sum();
            for (int i = d.nodes.nextSetBit(0); i >= 0; i = d.nodes.nextSetBit(i + 1)) {
                if (!eligible.get(i)) continue;
                NodeState n = nodes.get(i);
                free.add(n.free().clampNonNegative());
                alloc.add(n.spec.allocatable());
            }
            out.add(new Fit(d, free.toResources(), alloc.toResources()));
        }
        return out;
    }

    private static boolean contains(Domain d, BitSet which) {
        for (int i = which.nextSetBit(0); i >= 0; i = which.nextSetBit(i + 1)) if (!d.nodes.get(i)) return false;
        return true;
    }

    private BitSet nominatedNodes(Job j) {
        BitSet b = new BitSet(nodes.size());
        for (Task t : j.pending) if (t.nominated != null && !t.placed) b.set(t.nominated.index);
        return b;
    }

    /**
     * Why a hard gang fits in no allowed domain, naming the closest and its shortfall in the gang's scarcest resource,
     * e.g. {@code no domain (hard, one rack) holds the whole gang; closest rack-3: 6 of 8 nvidia.com/gpu free, needs 8}.
     */
    public Refusal noDomainReason(Job j, NetworkTopology want, Resources need, BitSet eligible) {
        List<Fit> fits = measure(j, want, eligible);
        if (fits.isEmpty()) return new Refusal.NoDomainAllowed(want, noneExists(want));
        String dim = NodeFitter.primaryDimension(need);
        Fit closest = null;
        for (Fit f : fits) {
            if (closest == null || f.free().milli(dim) > closest.free().milli(dim)
                    || (f.free().milli(dim) == closest.free().milli(dim) && f.domain().tier > closest.domain().tier)) {
                closest = f;
            }
        }
        return new Refusal.NoDomainClose(want, room(closest, dim, need));
    }

    /**
     * The domain's free and allocatable amount of {@code dim}, and the gang's need of it ({@code rack-3: 6 of 8
     * nvidia.com/gpu free, needs 8} in {@link dev.arbiter.decision.ReasonWords}' words).
     */
    public static Refusal.DomainRoom room(Fit f, String dim, Resources need) {
        return new Refusal.DomainRoom(f.domain().name, dim, f.free().milli(dim), f.allocatable().milli(dim),
                need.milli(dim));
    }

    private Refusal.Missing noneExists(NetworkTopology want) {
        List<Domain> allowed = allowed(want);
        if (allowed.isEmpty()) {
            if (want.level() != null) return Refusal.Missing.LABEL;
            return all.isEmpty() ? Refusal.Missing.ANY_DOMAIN : Refusal.Missing.TIER;
        }
        return Refusal.Missing.ONE_DOMAIN;
    }

    /**
     * The domain the job runs in: where this cycle started it, else, for a job with a network topology, the smallest
     * allowed domain holding every running member (lowest tier on a tie); null otherwise.
     */
    public String domainOf(Job j) {
        if (j.domain != null) return j.domain;
        if (j.running.isEmpty()) return null;
        NetworkTopology want = wanted(j);
        if (want == null) return null;
        BitSet running = new BitSet(nodes.size());
        for (Task t : j.running) if (!t.evicted) running.set(t.node.index);
        if (running.isEmpty()) return null;
        Domain best = null;
        for (Domain d : allowed(want)) {
            if (!contains(d, running)) continue;
            if (best == null || d.nodes.cardinality() < best.nodes.cardinality()
                    || (d.nodes.cardinality() == best.nodes.cardinality() && d.tier < best.tier)) {
                best = d;
            }
        }
        return best == null ? null : best.name;
    }

    // ---- unconstrained gangs ------------------------------------------------------------------------------------

    /**
     * Per node, a rank for the packing order of gangs without a constraint: among nodes with equally little free of
     * {@code dim}, those in fuller domains come first (lower rank), and the nodes of one domain come together, so a
     * cycle fills one domain before it opens the next and whole domains stay free for constrained gangs. A node's
     * domain here is the lowest-tier domain of more than one node that holds it; its fullness is measured once, when
     * the cycle starts (the rank must not change while nodes sit in sorted indexes): rank = (1000 - used per mille)
     * × 1,000,000 + the domain's ordinal. Null without domains or when the policy turns it off.
     */
    int[] fullerFirst(String dim) {
        if (all.isEmpty() || !settings.preferFullerDomains()) return null;
        return fullerFirst.computeIfAbsent(dim, k -> {
            int[] rank = new int[nodes.size()];
            java.util.Arrays.fill(rank, 1001 * 1_000_000);
            int[] tierOf = new int[nodes.size()];
            int ordinal = 0;
            for (Domain d : all) {
                if (d.nodes.cardinality() < 2 || d.tier < 1) continue;
                long used = 0, alloc = 0;
                for (int i = d.nodes.nextSetBit(0); i >= 0; i = d.nodes.nextSetBit(i + 1)) {
                    used += Math.max(0, nodes.get(i).used().milli(k));
                    alloc += Math.max(0, nodes.get(i).spec.allocatable().milli(k));
                }
                int r = (alloc == 0 ? 1000 : (int) (1000 - Math.min(1000, used * 1000 / alloc))) * 1_000_000
                        + Math.min(ordinal++, 999_999);
                for (int i = d.nodes.nextSetBit(0); i >= 0; i = d.nodes.nextSetBit(i + 1)) {
                    if (tierOf[i] == 0 || d.tier < tierOf[i]) {
                        tierOf[i] = d.tier;
                        rank[i] = r;
                    }
                }
            }
            return rank;
        });
    }
}
