package dev.arbiter.engine.rules;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kie.api.KieBase;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;
import org.kie.api.io.Resource;
import org.kie.api.runtime.KieSession;

/** Which rules each file of a compiled {@link RuleBook} defines, for {@code arbiter validate} and warnings. */
public final class RuleInventory {
    private RuleInventory() {}

    /**
     * Rule names per file name (e.g. {@code reclaim.drl}), files in the book's order, rules in file order. A rule
     * whose source Drools does not record is listed under {@code "?"}.
     */
    public static Map<String, List<String>> rulesByFile(RuleBook book) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Path f : book.files()) out.put(f.getFileName().toString(), new ArrayList<>());
        KieSession session = book.newSession();
        try {
            KieBase base = session.getKieBase();
            List<Rule> rules = new ArrayList<>();
            for (KiePackage pkg : base.getKiePackages()) rules.addAll(pkg.getRules());
            rules.sort(java.util.Comparator.comparingInt(RuleInventory::loadOrder));
            for (Rule r : rules) out.computeIfAbsent(fileOf(r), k -> new ArrayList<>()).add(r.getName());
        } finally {
            session.dispose();
        }
        return out;
    }

    private static int loadOrder(Rule r) {
        return r instanceof org.drools.base.definitions.rule.impl.RuleImpl impl ? impl.getLoadOrder() : Integer.MAX_VALUE;
    }

    /** The file name a rule was read from. */
    static String fileOf(Rule r) {
        if (r instanceof org.drools.base.definitions.rule.impl.RuleImpl impl) {
            Resource res = impl.getResource();
            String path = res == null ? null : res.getSourcePath();
            if (path != null) return Path.of(path).getFileName().toString();
        }
        return "?";
    }
}
