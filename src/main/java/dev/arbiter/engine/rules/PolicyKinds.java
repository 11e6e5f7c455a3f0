package dev.arbiter.engine.rules;

import dev.arbiter.facts.AdmissionBudget;
import dev.arbiter.facts.AdmissionDenied;
import dev.arbiter.facts.AdmissionGrant;
import dev.arbiter.facts.AllocationLimit;
import dev.arbiter.facts.DequeuePolicy;
import dev.arbiter.facts.DeservedShare;
import dev.arbiter.facts.LendingLimit;
import dev.arbiter.facts.ReclaimAtOnce;
import dev.arbiter.facts.GangPolicy;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.LowestRunningPriority;
import dev.arbiter.facts.NoPreemption;
import dev.arbiter.facts.PreemptGrant;
import dev.arbiter.facts.PriorityFromPods;
import dev.arbiter.facts.PriorityOf;
import dev.arbiter.facts.Protected;
import dev.arbiter.facts.ReclaimGrant;
import dev.arbiter.facts.ReservationGrant;
import dev.arbiter.facts.ShareTerms;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/**
 * The one registry of policy facts: every kind the rules may insert, what it is about (its key: a queue, a job, a
 * task, or nothing for a cluster-wide decision) and how several facts of one kind about one key combine. The engine
 * reads the rules' decisions through this registry only (see {@link Policy}); {@code validate} reports facts of kinds
 * it does not list, and conflicting ones.
 *
 * <ul>
 *   <li>{@link Combine#ONE}: one decision per key; two that differ conflict (the first rule by name wins meanwhile).</li>
 *   <li>{@link Combine#FIRST_BY_RULE}: several may hold (two reasons to deny a job); the first rule by name is shown.</li>
 *   <li>{@link Combine#STRONGEST}: the one that covers more wins (a protection from every eviction beats one from
 *       reclaim only), then the first rule by name.</li>
 *   <li>{@link Combine#ALL}: every one counts (a queue may reclaim from several queues), in key order.</li>
 *   <li>{@link Combine#SINGLETON}: one for the whole cluster; two conflict.</li>
 *   <li>{@link Combine#DERIVED}: a step of the rules' own reasoning that the engine does not read.</li>
 * </ul>
 */
public final class PolicyKinds {
    enum Combine { ONE, FIRST_BY_RULE, STRONGEST, ALL, SINGLETON, DERIVED }

    /** Two rules that decided one thing two ways: {@code kind} (a fact class name) about {@code key} ("" for the cluster). */
    public record Conflict(String kind, String key, String firstRule, String secondRule) {
        @Override
        public String toString() {
            return kind + (key.isEmpty() ? "" : " for " + key) + ": rules \"" + firstRule + "\" and \"" + secondRule
                    + "\" decide differently";
        }
    }

    /** One kind of policy fact: its class, its key, how facts combine, the rule that inserted one, and its phase. */
    public record Kind<F>(Class<F> type, Function<F, String> key, Combine combine, Function<F, String> rule, Phase phase) {
        String keyOf(Object fact) {
            String k = key.apply(type.cast(fact));
            return k == null ? "" : k;
        }

        String ruleOf(Object fact) {
            return rule.apply(type.cast(fact));
        }
    }

    private static final Map<Class<?>, Kind<?>> KINDS = new LinkedHashMap<>();

    private static <F> void register(Class<F> type, Function<F, String> key, Combine combine, Function<F, String> rule,
                                     Phase phase) {
        KINDS.put(type, new Kind<>(type, key, combine, rule, phase));
    }

    static {
        register(PriorityOf.class, PriorityOf::name, Combine.ONE, PriorityOf::rule, Phase.CLASSIFY);
        register(PriorityFromPods.class, f -> "", Combine.SINGLETON, PriorityFromPods::rule, Phase.CLASSIFY);
        register(ShareTerms.class, ShareTerms::queue, Combine.ONE, ShareTerms::rule, Phase.FAIR_SHARE);
        register(DeservedShare.class, DeservedShare::queue, Combine.ONE, DeservedShare::rule, Phase.FAIR_SHARE);
        register(LendingLimit.class, LendingLimit::queue, Combine.ONE, LendingLimit::rule, Phase.FAIR_SHARE);
        register(AdmissionBudget.class, AdmissionBudget::queue, Combine.ONE, AdmissionBudget::rule, Phase.POLICY);
        register(AdmissionDenied.class, AdmissionDenied::job, Combine.FIRST_BY_RULE, AdmissionDenied::rule, Phase.POLICY);
        register(AdmissionGrant.class, AdmissionGrant::job, Combine.FIRST_BY_RULE, AdmissionGrant::rule, Phase.POLICY);
        register(LowestRunningPriority.class, LowestRunningPriority::queue, Combine.DERIVED, LowestRunningPriority::rule, Phase.POLICY);
        register(ReclaimAtOnce.class, f -> f.queue() + "/" + f.lender(), Combine.DERIVED, ReclaimAtOnce::rule, Phase.POLICY);
        register(AllocationLimit.class, AllocationLimit::queue, Combine.ONE, AllocationLimit::rule, Phase.POLICY);
        register(GangPolicy.class, f -> "", Combine.SINGLETON, GangPolicy::rule, Phase.POLICY);
        register(GangRequirement.class, GangRequirement::job, Combine.ONE, GangRequirement::rule, Phase.POLICY);
        register(PreemptGrant.class, PreemptGrant::queue, Combine.ONE, PreemptGrant::rule, Phase.POLICY);
        register(ReclaimGrant.class, ReclaimGrant::reclaimer, Combine.ALL, ReclaimGrant::rule, Phase.POLICY);
        register(Protected.class, Protected::task, Combine.STRONGEST, Protected::rule, Phase.POLICY);
        register(DequeuePolicy.class, DequeuePolicy::queue, Combine.ONE, DequeuePolicy::rule, Phase.POLICY);
        register(NoPreemption.class, NoPreemption::job, Combine.FIRST_BY_RULE, NoPreemption::rule, Phase.POLICY);
        register(ReservationGrant.class, ReservationGrant::queue, Combine.ONE, ReservationGrant::rule, Phase.POLICY);
    }

    private PolicyKinds() {}

    /** The registered kind of {@code type}, or null for a class the engine does not read. */
    public static Kind<?> of(Class<?> type) {
        return KINDS.get(type);
    }

    public static Collection<Kind<?>> all() {
        return KINDS.values();
    }

    /**
     * Facts of one kind combined per key; conflicts (two different decisions for a key that takes one) are reported
     * to {@code conflicts}, naming the key and both rules.
     */
    static Map<String, Object> combine(Kind<?> kind, Collection<?> facts, List<Conflict> conflicts) {
        Map<String, Object> out = new HashMap<>(Math.max(16, facts.size() * 2));
        if (kind.combine() == Combine.ALL) {
            Map<String, List<Object>> lists = new HashMap<>();
            for (Object f : facts) lists.computeIfAbsent(kind.keyOf(f), k -> new ArrayList<>()).add(f);
            Comparator<Object> order = kind.type() == ReclaimGrant.class
                    ? Comparator.comparing((Object g) -> ((ReclaimGrant) g).victimQueue()).thenComparing(kind::ruleOf)
                    : Comparator.comparing(kind::ruleOf);
            lists.values().forEach(l -> l.sort(order));
            out.putAll(lists);
            return out;
        }
        BinaryOperator<Object> merge = switch (kind.combine()) {
            case STRONGEST -> (a, b) -> stronger((Protected) a, (Protected) b);
            default -> (a, b) -> kind.ruleOf(a).compareTo(kind.ruleOf(b)) <= 0 ? a : b;
        };
        for (Object f : facts) {
            String key = kind.keyOf(f);
            Object before = out.get(key);
            if (before == null) {
                out.put(key, f);
                continue;
            }
            if ((kind.combine() == Combine.ONE || kind.combine() == Combine.SINGLETON) && !sameDecision(before, f, kind)) {
                String a = kind.ruleOf(before);
                String b = kind.ruleOf(f);
                conflicts.add(new Conflict(kind.type().getSimpleName(), key, a.compareTo(b) <= 0 ? a : b, a.compareTo(b) <= 0 ? b : a));
            }
            out.put(key, merge.apply(before, f));
        }
        return out;
    }

    /** Two facts that differ only in the rule that inserted them decide the same. */
    private static boolean sameDecision(Object a, Object b, Kind<?> kind) {
        if (!(a instanceof Record ra) || !(b instanceof Record rb)) return a.equals(b);
        var components = ra.getClass().getRecordComponents();
        try {
            for (var c : components) {
                if (c.getName().equals("rule")) continue;
                if (!java.util.Objects.equals(c.getAccessor().invoke(ra), c.getAccessor().invoke(rb))) return false;
            }
            return true;
        } catch (ReflectiveOperationException e) {
            return a.equals(b);
        }
    }

    /**
     * Of two protections for one task, the one that covers more (protected from all evictions beats reclaim only);
     * between equals, the first rule by name, so the reason shown does not depend on the session's iteration order.
     */
    private static Protected stronger(Protected a, Protected b) {
        if (a.coversPreemption() != b.coversPreemption()) return a.coversPreemption() ? a : b;
        return a.rule().compareTo(b.rule()) <= 0 ? a : b;
    }
}
