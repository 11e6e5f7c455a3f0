package dev.arbiter.engine.rules;

import dev.arbiter.facts.Clock;
import dev.arbiter.facts.ClusterFact;
import dev.arbiter.facts.DeservedShare;
import dev.arbiter.facts.JobFact;
import dev.arbiter.facts.PriorityClassFact;
import dev.arbiter.facts.PriorityFromPods;
import dev.arbiter.facts.PriorityLookup;
import dev.arbiter.facts.PriorityOf;
import dev.arbiter.facts.QueueFact;
import dev.arbiter.facts.QueueShare;
import dev.arbiter.facts.ShareTerms;
import dev.arbiter.facts.TaskFact;
import dev.arbiter.policy.PolicySettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.drools.base.definitions.rule.impl.RuleImpl;
import org.drools.base.rule.Pattern;
import org.drools.base.rule.RuleConditionElement;
import org.drools.base.base.ClassObjectType;
import org.drools.core.common.EqualityKey;
import org.drools.core.common.InternalFactHandle;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;
import org.kie.api.event.rule.AfterMatchFiredEvent;
import org.kie.api.event.rule.AgendaEventListener;
import org.kie.api.event.rule.BeforeMatchFiredEvent;
import org.kie.api.event.rule.DefaultAgendaEventListener;
import org.kie.api.event.rule.ObjectDeletedEvent;
import org.kie.api.event.rule.ObjectInsertedEvent;
import org.kie.api.event.rule.ObjectUpdatedEvent;
import org.kie.api.event.rule.RuleRuntimeEventListener;
import org.kie.api.runtime.KieSession;
import org.kie.api.runtime.rule.FactHandle;

/**
 * The rules session of one policy, and the input facts Java put in it, by key. A fresh session serves one cycle; a
 * <b>kept</b> session serves cycle after cycle: each cycle brings its input facts up to date — inserting the new ones,
 * updating the changed ones and deleting the gone ones — and the policy facts the rules inserted logically retract themselves when their
 * conditions stop holding. After any sequence of cycles, its policy is what a fresh session would decide on the same
 * snapshot (the differential test {@code KeptSessionTest} holds it to that).
 *
 * <p>That holds only for rules that keep to the one-way contract, so a session is kept only when
 * <ul>
 *   <li>every rule of the {@code classify} and {@code fair-share} phases reads only facts that exist in a fresh
 *       session when its phase fires (in a kept session, the later phases' facts of the last cycle are still there):
 *       checked once per policy, from the compiled rules ({@link #keepable}); and</li>
 *   <li>no rule inserts a fact other than logically (unless it has no conditions: it fires once in either session),
 *       nor modifies or deletes one: checked as the rules fire; a cycle where one does is still right, but its
 *       session is not kept.</li>
 * </ul>
 * Otherwise every cycle gets a fresh session, as before.
 */
public final class RulesSession implements AutoCloseable {
    /** The input facts each phase may read (and those the phases before it derived), for the {@link #keepable} check. */
    private static final Set<Class<?>> CLASSIFY_READS = Set.of(PolicySettings.class, PriorityClassFact.class,
            PriorityLookup.class, PriorityOf.class, PriorityFromPods.class);
    private static final Set<Class<?>> FAIR_SHARE_READS = Set.of(PolicySettings.class, PriorityClassFact.class,
            PriorityLookup.class, PriorityOf.class, PriorityFromPods.class, ClusterFact.class, Clock.class, QueueFact.class,
            JobFact.class, TaskFact.class, ShareTerms.class, DeservedShare.class, dev.arbiter.facts.LendingLimit.class);
    private static final Map<Object, Boolean> KEEPABLE = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    final KieSession session;
    final RuleLimits limits;
    final PolicySettings settings;
    private final boolean kept;
    private final Guard guard = new Guard();
    private final Map<Class<?>, Table> tables = new HashMap<>();
    private int cycle;
    /**
     * For the tables brought up to date from a kept working copy's changes (jobs, tasks): the copy's state (its
     * epoch and cycle) each table's facts were last made to match, when they could be followed from there.
     */
    private final Map<Class<?>, Synced> synced = new HashMap<>();

    private record Synced(Object epoch, int cycle) {}

    private RulesSession(RuleBook rules, boolean kept) {
        this.session = rules.newSession();
        this.settings = rules.settings();
        this.limits = new RuleLimits(settings.limits(), rules);
        this.kept = kept;
        session.addEventListener(limits);
        if (kept) {
            session.addEventListener((AgendaEventListener) guard);
            session.addEventListener((RuleRuntimeEventListener) guard);
        }
        session.insert(settings);
    }

    /** A session for one cycle, disposed after it. */
    static RulesSession fresh(RuleBook rules) {
        return new RulesSession(rules, false);
    }

    /** A session to keep across cycles; the caller checks {@link #keepable} first. */
    public static RulesSession kept(RuleBook rules) {
        return new RulesSession(rules, true);
    }

    boolean isKept() {
        return kept;
    }

    /** Starts a cycle on this session. */
    void beginCycle() {
        cycle++;
        for (Table t : tables.values()) t.updated = 0;
    }

    /** How many facts of {@code type} this cycle updated in place (a kept session; for tests). */
    public int updatedThisCycle(Class<?> type) {
        Table t = tables.get(type);
        return t == null ? 0 : t.updated;
    }

    /** True when the session may serve the next cycle: no rule stepped outside the one-way contract. */
    public boolean stillKeepable() {
        return kept && guard.violation == null;
    }

    /** Why the session cannot be kept, or null. */
    public String violation() {
        return guard.violation;
    }

    /**
     * Brings the facts of {@code type} up to date with {@code now} (key → fact): inserts, updates the changed (naming
     * the properties that differ) and deletes those no longer there. A fresh session inserts them all. Returns how many
     * facts of the type the session now holds.
     */
    <F> int sync(Class<F> type, Map<String, F> now) {
        if (!kept) {
            for (F f : now.values()) session.insert(f);
            return now.size();
        }
        Table t = tables.computeIfAbsent(type, k -> new Table());
        for (Map.Entry<String, F> e : now.entrySet()) put(t, e.getKey(), e.getValue());
        sweep(t);
        return now.size();
    }

    /** As {@link #sync}, for facts streamed one by one ({@link #put}) and then {@link #sweep swept}. */
    Table table(Class<?> type) {
        return tables.computeIfAbsent(type, k -> new Table());
    }

    /** Puts one fact of a streamed table (a fresh session just inserts it). */
    void put(Table t, String key, Object fact) {
        put(t, key, fact, null);
    }

    /**
     * {@link #put}, for the fact of a subject kept across cycles (a job, a task, its key for life): the entry notes
     * whose fact it holds, for {@link #factOf} and {@link #remove}.
     */
    void put(Table t, String key, Object fact, Object subject) {
        if (!kept) {
            session.insert(fact);
            return;
        }
        Entry e = t.entries.get(key);
        if (e == null) {
            e = new Entry(session.insert(fact), fact, cycle);
            e.subject = subject;
            t.entries.put(key, e);
            return;
        }
        e.seen = cycle;
        e.subject = subject;
        if (e.fact == fact || e.fact.equals(fact)) return;
        // Every property counts as modified: a consequence may read any of them ($s.getDeserved()), and property
        // reactivity only sees the ones a pattern constrains.
        session.update(e.handle, fact);
        e.fact = fact;
        t.updated++;
    }

    /**
     * The fact the session holds under {@code key}, when {@link #put} put it for {@code subject} itself; else null
     * (always null in a fresh session). A subject whose fact would be the same reuses it.
     */
    Object factOf(Table t, String key, Object subject) {
        if (!kept) return null;
        Entry e = t.entries.get(key);
        return e != null && e.subject == subject ? e.fact : null;
    }

    /**
     * True when the facts of {@code type} are those of the working copy's cycle right before {@code cycle} of
     * {@code epoch}: the copy's changes since then bring them up to date ({@link #remove} and {@link #put}, no
     * {@link #sweep}).
     */
    boolean follows(Class<?> type, Object epoch, int cycle) {
        Synced last = synced.get(type);
        return kept && epoch != null && last != null && epoch == last.epoch() && cycle == last.cycle() + 1;
    }

    /** The facts of {@code type} are now those of the copy's {@code cycle} of {@code epoch} (null: of no copy's). */
    void synced(Class<?> type, Object epoch, int cycle) {
        synced.put(type, new Synced(epoch, cycle));
    }

    /** Deletes the fact {@link #put} last put under {@code key} for {@code subject}, a subject kept across cycles. */
    void remove(Table t, String key, Object subject) {
        if (!kept) return;
        Entry e = t.entries.get(key);
        if (e == null || e.subject != subject) {
            throw new IllegalStateException("the kept rules session has no fact for " + key + " to delete");
        }
        session.delete(e.handle);
        t.entries.remove(key, e);
    }

    /** Deletes the facts of a streamed table that this cycle did not put. */
    void sweep(Table t) {
        if (!kept) return;
        for (Iterator<Entry> it = t.entries.values().iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.seen != cycle) {
                session.delete(e.handle);
                it.remove();
            }
        }
    }

    @Override
    public void close() {
        session.dispose();
    }

    /**
     * The input facts of one type in a kept session, by key: the session's own record of what it holds, and for a
     * subject kept across cycles (a job, a task), of whose fact it is.
     */
    static final class Table {
        private final Map<String, Entry> entries = new HashMap<>();
        private int updated;
    }

    private static final class Entry {
        final FactHandle handle;
        Object fact;
        int seen;
        /** The job or task whose fact it is (the last one put under its key), or null. */
        Object subject;

        Entry(FactHandle handle, Object fact, int seen) {
            this.handle = handle;
            this.fact = fact;
            this.seen = seen;
        }
    }

    // ---- may a session of these rules be kept? ----------------------------------------------------------------------

    /**
     * True when every rule of the {@code classify} and {@code fair-share} phases (and of no phase: those fire with
     * each) matches only facts a fresh session holds when that phase fires. Checked once per compiled policy.
     */
    public static boolean keepable(RuleBook rules) {
        return KEEPABLE.computeIfAbsent(rules.kieBase(), k -> firstPhasesReadOnlyTheirFacts(rules) == null);
    }

    /** The first rule that reads a fact its phase cannot see in a fresh session, as a sentence; or null. */
    public static String firstPhasesReadOnlyTheirFacts(RuleBook rules) {
        for (KiePackage pkg : rules.kieBase().getKiePackages()) {
            for (Rule r : pkg.getRules()) {
                RuleImpl rule = (RuleImpl) r;
                String group = rule.getRuleFlowGroup() != null ? rule.getRuleFlowGroup() : rule.getAgendaGroup();
                Set<Class<?>> allowed = switch (group == null ? "MAIN" : group) {
                    case "classify", "MAIN" -> CLASSIFY_READS;
                    case "fair-share" -> FAIR_SHARE_READS;
                    default -> null;
                };
                if (allowed == null) continue;
                List<Class<?>> read = new ArrayList<>();
                patternTypes(rule.getLhs(), read);
                for (Class<?> c : read) {
                    if (!allowed.contains(c) && !c.getName().endsWith("InitialFact") && !c.getName().endsWith("InitialFactImpl")) {
                        return "rule \"" + rule.getName() + "\" in phase " + group + " reads " + c.getSimpleName();
                    }
                }
            }
        }
        return null;
    }

    private static void patternTypes(RuleConditionElement e, List<Class<?>> out) {
        if (e instanceof Pattern p) {
            if (p.getObjectType() instanceof ClassObjectType c) out.add(c.getClassType());
            else out.add(Object.class);
        }
        for (RuleConditionElement child : e.getNestedElements()) patternTypes(child, out);
    }

    /**
     * Watches the rules of a kept session: a fact a rule inserts other than logically (when the rule has conditions),
     * or one it modifies or deletes, would outlive the conditions that made it, so that session is not kept.
     */
    private static final class Guard extends DefaultAgendaEventListener implements RuleRuntimeEventListener {
        private boolean matchHasFacts;
        public volatile String violation;

        @Override
        public void beforeMatchFired(BeforeMatchFiredEvent event) {
            matchHasFacts = false;
            for (Object o : event.getMatch().getObjects()) {
                if (o != null && !o.getClass().getSimpleName().startsWith("InitialFact")) matchHasFacts = true;
            }
        }

        @Override
        public void afterMatchFired(AfterMatchFiredEvent event) {
            matchHasFacts = false;
        }

        @Override
        public void objectInserted(ObjectInsertedEvent event) {
            if (event.getRule() == null || !matchHasFacts || violation != null) return;
            if (!justified(event.getFactHandle())) {
                violation = "rule \"" + event.getRule().getName() + "\" inserts " + event.getObject().getClass().getSimpleName()
                        + " without insertLogical";
            }
        }

        @Override
        public void objectUpdated(ObjectUpdatedEvent event) {
            if (event.getRule() != null && violation == null) {
                violation = "rule \"" + event.getRule().getName() + "\" modifies " + event.getObject().getClass().getSimpleName();
            }
        }

        @Override
        public void objectDeleted(ObjectDeletedEvent event) {
            if (event.getRule() != null && violation == null && !justified(event.getFactHandle())) {
                violation = "rule \"" + event.getRule().getName() + "\" deletes " + event.getOldObject().getClass().getSimpleName();
            }
        }

        private static boolean justified(FactHandle h) {
            EqualityKey key = h instanceof InternalFactHandle ih ? ih.getEqualityKey() : null;
            return key != null && key.getStatus() == EqualityKey.JUSTIFIED;
        }
    }
}
