package dev.arbiter.engine.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.drools.base.definitions.rule.impl.RuleImpl;
import org.kie.api.KieBase;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;

/**
 * The phases a cycle fires the rules in, in this order; a rule belongs to one by its {@code ruleflow-group} (or
 * {@code agenda-group}). The engine fires only these, so a rule in any other group, or in none, would never fire:
 * {@link #misplaced} refuses such rules when the rules are loaded, naming the rule's {@code file:line}, so a misspelled
 * group cannot pass into a running policy.
 */
public enum Phase {
    /** Priorities: a {@code PriorityOf} per priority class name in use. */
    CLASSIFY("classify"),
    /** On what terms each queue shares ({@code ShareTerms} or a {@code DeservedShare}). */
    FAIR_SHARE("fair-share"),
    /** Everything the Java steps obey: admission, limits, gangs, orders, grants, protections. */
    POLICY("policy");

    private final String group;

    Phase(String group) {
        this.group = group;
    }

    /** The group name rules state ({@code ruleflow-group "policy"}). */
    String group() {
        return group;
    }

    /** The phase of that group name, or null. */
    static Phase of(String group) {
        for (Phase p : values()) if (p.group.equals(group)) return p;
        return null;
    }

    /** The group names, in firing order, for messages. */
    static String names() {
        List<String> out = new ArrayList<>();
        for (Phase p : values()) out.add(p.group);
        return String.join(", ", out);
    }

    /** One {@code file:line: ...} line per rule of {@code base} that is in no phase ({@code locations}: by rule name). */
    static List<String> misplaced(KieBase base, Map<String, String> locations) {
        List<String> out = new ArrayList<>();
        for (KiePackage pkg : base.getKiePackages()) {
            for (Rule r : pkg.getRules()) {
                String group = groupOf(r);
                if (of(group) != null) continue;
                String where = locations.get(r.getName());
                out.add((where == null ? pkg.getName() : where) + ": rule \"" + r.getName() + "\" is in "
                        + (group == null ? "no group" : "group \"" + group + "\"") + ", which the engine never fires"
                        + " on its own (known: " + names() + "; add ruleflow-group \"policy\")");
            }
        }
        out.sort(null);
        return out;
    }

    /** The group a compiled rule states, or null for none (Drools' default agenda group). */
    static String groupOf(Rule r) {
        RuleImpl rule = (RuleImpl) r;
        if (rule.getRuleFlowGroup() != null) return rule.getRuleFlowGroup();
        String agenda = rule.getAgendaGroup();
        return agenda == null || agenda.equals("MAIN") ? null : agenda;
    }
}
