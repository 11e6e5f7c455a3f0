package dev.arbiter.engine.rules;

import dev.arbiter.facts.AdmissionBudget;
import dev.arbiter.facts.AllocationLimit;
import dev.arbiter.facts.DeservedShare;
import dev.arbiter.facts.GangPolicy;
import dev.arbiter.facts.GangRequirement;
import dev.arbiter.facts.PriorityLookup;
import dev.arbiter.facts.PriorityOf;
import dev.arbiter.facts.QueueFact;
import dev.arbiter.facts.ShareTerms;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.kie.api.definition.type.FactType;
import org.kie.api.event.rule.DefaultAgendaEventListener;
import org.kie.api.event.rule.DefaultRuleRuntimeEventListener;
import org.kie.api.event.rule.MatchCreatedEvent;
import org.kie.api.event.rule.ObjectInsertedEvent;
import org.kie.api.runtime.ClassObjectFilter;
import org.kie.api.runtime.KieSession;

/**
 * Session hooks for the tools that watch the real engine at work ({@code validate}'s policy check and growth check),
 * so that what they learn from a rules session reaches them as plain data and Drools stays inside this package.
 */
public final class SessionWatches {
    private SessionWatches() {}

    /** A hook that counts, per rule name, the matches created while a cycle runs (into {@code matches}). */
    public static SessionHook countingMatches(Map<String, Long> matches) {
        return new SessionHook() {
            @Override
            public void opened(KieSession session) {
                session.addEventListener(new DefaultAgendaEventListener() {
                    @Override
                    public void matchCreated(MatchCreatedEvent event) {
                        matches.merge(event.getMatch().getRule().getName(), 1L, Long::sum);
                    }
                });
            }
        };
    }

    /**
     * What the policy check learns from one cycle's session: facts of types the engine does not read that rules
     * inserted (by type, the first rule that did), rules that decided one thing two ways, and the decisions the engine
     * needs that no rule made (keyed so each is said once).
     */
    public static final class PolicyWatch implements SessionHook {
        private final RuleBook book;
        private final Predicate<Class<?>> known;
        private final Map<Class<?>, String> foreign = new LinkedHashMap<>();
        private final Map<String, String> missing = new LinkedHashMap<>();
        private final List<PolicyKinds.Conflict> conflicts = new ArrayList<>();

        /** {@code known}: the types the engine reads or puts in itself (inputs and policy kinds). */
        public PolicyWatch(RuleBook book, Predicate<Class<?>> known) {
            this.book = book;
            this.known = known;
        }

        public Map<Class<?>, String> foreign() {
            return foreign;
        }

        public Map<String, String> missing() {
            return missing;
        }

        public List<PolicyKinds.Conflict> conflicts() {
            return conflicts;
        }

        @Override
        public void opened(KieSession session) {
            session.addEventListener(new DefaultRuleRuntimeEventListener() {
                @Override
                public void objectInserted(ObjectInsertedEvent event) {
                    Class<?> type = event.getObject().getClass();
                    if (event.getRule() == null || known.test(type)) return;
                    if (declaredByRules(type)) return;
                    foreign.putIfAbsent(type, event.getRule().getName());
                }
            });
        }

        @Override
        public void closing(KieSession session, List<PolicyKinds.Conflict> conflicts) {
            this.conflicts.addAll(conflicts);
            gaps(session);
        }

        private boolean declaredByRules(Class<?> type) {
            String name = type.getName();
            int dot = name.lastIndexOf('.');
            if (dot < 0) return false;
            FactType declared = book.kieBase().getFactType(name.substring(0, dot), name.substring(dot + 1));
            return declared != null;
        }

        private static Collection<?> all(KieSession session, Class<?> type) {
            return session.getObjects(new ClassObjectFilter(type));
        }

        private void gaps(KieSession session) {
            Set<String> decided = new LinkedHashSet<>();
            for (Object o : all(session, PriorityOf.class)) decided.add(String.valueOf(((PriorityOf) o).name()));
            Set<String> classes = new java.util.TreeSet<>();
            boolean classless = false;
            for (Object o : all(session, PriorityLookup.class)) {
                String name = ((PriorityLookup) o).getName();
                if (decided.contains(String.valueOf(name))) continue;
                if (name == null) classless = true;
                else classes.add("\"" + name + "\"");
            }
            if (!classes.isEmpty() || classless) {
                String of = classes.isEmpty() ? "" : (classes.size() == 1 ? "priority class " : "priority classes ") + String.join(", ", classes);
                String none = classless ? (of.isEmpty() ? "" : ", nor of ") + "pods and PodGroups without one" : "";
                missing.put("priority", "no rule decides the priority of " + of + none + ": every job and pod of them would get"
                        + " priority 0 (is priority.drl missing?)");
            }
            Set<String> shared = new LinkedHashSet<>();
            for (Object o : all(session, ShareTerms.class)) shared.add(((ShareTerms) o).queue());
            for (Object o : all(session, DeservedShare.class)) shared.add(((DeservedShare) o).queue());
            Set<String> limited = new LinkedHashSet<>();
            for (Object o : all(session, AllocationLimit.class)) limited.add(((AllocationLimit) o).queue());
            Set<String> budgeted = new LinkedHashSet<>();
            for (Object o : all(session, AdmissionBudget.class)) budgeted.add(((AdmissionBudget) o).queue());
            for (Object o : all(session, QueueFact.class)) {
                QueueFact q = (QueueFact) o;
                if (!shared.contains(q.getName())) {
                    missing.put("share " + q.getName(), "no rule gives queue \"" + q.getName() + "\" fair-share terms (ShareTerms or"
                            + " DeservedShare): it would deserve nothing (is fair-share.drl missing?)");
                }
                if (q.isOpen() && !limited.contains(q.getName())) {
                    missing.put("limit " + q.getName(), "no rule gives open queue \"" + q.getName() + "\" an AllocationLimit: nothing"
                            + " would be allocated to it");
                }
                if (q.isOpen() && !budgeted.contains(q.getName())) {
                    missing.put("budget " + q.getName(), "no rule gives open queue \"" + q.getName() + "\" an AdmissionBudget:"
                            + " none of its jobs would be admitted (is enqueue.drl missing?)");
                }
            }
            if (all(session, GangPolicy.class).isEmpty() && all(session, GangRequirement.class).isEmpty()) {
                missing.put("gang", "no rule states a gang requirement (GangPolicy or GangRequirement): no job could start"
                        + " (is gang.drl missing?)");
            }
        }
    }
}
