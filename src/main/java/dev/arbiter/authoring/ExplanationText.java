package dev.arbiter.authoring;

import dev.arbiter.authoring.Explanation.NodeGap;
import dev.arbiter.authoring.Explanation.Share;
import dev.arbiter.authoring.Explanation.Step;
import dev.arbiter.model.Quantity;
import dev.arbiter.sim.JsonReport;
import dev.arbiter.sim.TableReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Renders an {@link Explanation} for people. Example (the seed scenario):
 * <pre>
 * PodGroup a01/qwen2-72b-unified-pg (queue tenanta)
 *   outcome: Running: 2 of 2 running, minMember 2
 *   why:     started in cycle 4 with 2 of minMember 2, after reclaim evicted 2 pod(s) in cycle 3
 *   ...
 * Queues in cycle 3 (allocated when the cycle started -&gt; when it ended, against deserved):
 *   tenantb   mars-tech.com/gpu   32 -&gt; 16   16
 * </pre>
 */
public final class ExplanationText {
    private ExplanationText() {}

    /** The one line live mode puts into the PodGroup condition and the FailedScheduling event. */
    public static String oneLine(Explanation e) {
        return e.reason() + (e.rule() == null ? "" : " [rule: " + e.rule() + "]");
    }

    public static String render(Explanation e) {
        StringBuilder sb = new StringBuilder();
        sb.append(e.subject()).append(e.queue() == null ? "" : " (queue " + e.queue() + ")").append('\n');
        if (e.subject().startsWith("Pod ")) sb.append("  podgroup: ").append(e.podGroup()).append('\n');
        sb.append("  outcome:  ").append(e.outcome()).append('\n');
        sb.append("  why:      ").append(e.reason() == null ? "-" : e.reason()).append('\n');
        if (e.rule() != null) sb.append("  rule:     ").append(e.rule()).append('\n');
        if (e.domain() != null) sb.append("  domain:   ").append(e.domain()).append('\n');
        Explanation.Gang g = e.gang();
        sb.append("  gang:     ").append(g.placeable()).append('/').append(g.minMember()).append(" placeable (")
                .append(g.running()).append(" running of ").append(g.members()).append(" members, minMember ")
                .append(g.minMember()).append(")\n");

        if (!e.steps().isEmpty()) {
            sb.append("\nDecisions:\n");
            for (Step s : e.steps()) {
                sb.append("  cycle ").append(s.cycle()).append("  ");
                if (s.action().equals("bind")) {
                    sb.append("bind   ").append(s.pod()).append(" -> ").append(s.node());
                } else {
                    sb.append("evict  ").append(s.pod()).append(" from ").append(s.node()).append(" (").append(s.action())
                            .append(" for ").append(s.forPodGroup()).append(')');
                }
                sb.append("   [").append(s.rule()).append("]\n");
            }
        }

        if (!e.shares().isEmpty()) {
            sb.append("\nQueues in cycle ").append(e.cycle())
                    .append(" (allocated when the cycle started -> when it ended, against deserved):\n");
            sb.append(indent(TableReport.table(shareRows(e.shares()))));
            if (e.shares().stream().anyMatch(s -> s.held() != 0)) {
                sb.append("  HELD: capacity the cycle's evictions freed, kept for the pods it nominated until they bind;\n")
                        .append("  ALLOCATED counts it, BOUND does not.\n");
            }
        }

        if (!e.closest().isEmpty()) {
            sb.append("\nClosest nodes for pending pods:\n");
            for (NodeGap n : e.closest()) {
                sb.append("  ").append(n.pod()).append(": ");
                if (n.node() == null) sb.append(n.note());
                else if (n.shortfall().isEmpty()) sb.append(n.node()).append(" has room now");
                else sb.append(n.node()).append(" lacks ").append(Explainer.lacks(n.shortfall()));
                sb.append('\n');
            }
        }

        if (!e.holders().isEmpty()) {
            sb.append("\nRules on the running pods of the other queues above (last cycle):\n");
            e.holders().forEach((rule, pods) -> sb.append("  ").append(rule).append("   (").append(pods)
                    .append(pods == 1 ? " pod)\n" : " pods)\n"));
        }

        if (!e.rulesFired().isEmpty()) {
            sb.append("\nRules fired in cycle ").append(e.cycle()).append(":\n");
            for (Map.Entry<String, List<String>> f : e.rulesFired().entrySet()) {
                sb.append("  ").append(f.getKey()).append(":\n");
                for (String r : f.getValue()) sb.append("    ").append(r).append('\n');
            }
        }
        return safeLines(sb.toString());
    }

    /** Each line {@linkplain dev.arbiter.sim.TerminalText#safe safe} for a terminal (names come from manifests). */
    private static String safeLines(String text) {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) lines[i] = dev.arbiter.sim.TerminalText.safe(lines[i]);
        return String.join("\n", lines);
    }

    /**
     * For tools: {@code {"subject","podGroup","queue","outcome","reason","rule","cycle",
     * "gang":{"minMember","members","running","placeable"},"steps":[{"cycle","action","pod","node","for","rule"}],
     * "shares":[{"queue","resource","deserved","allocatedBefore","allocatedAfter","held"}],
     * "closest":[{"pod","node","lacks":{resource: quantity},"note"}],"holders":[{"rule","pods"}],
     * "rulesFired":{subject:[rule]}}}, amounts as Kubernetes quantity strings.
     */
    public static String json(Explanation e) {
        StringBuilder sb = new StringBuilder("{");
        sb.append("\"subject\":").append(JsonReport.str(e.subject())).append(",\"podGroup\":").append(JsonReport.str(e.podGroup()))
                .append(",\"queue\":").append(JsonReport.str(e.queue())).append(",\"outcome\":").append(JsonReport.str(e.outcome()))
                .append(",\"reason\":").append(JsonReport.str(e.reason())).append(",\"rule\":").append(JsonReport.str(e.rule()))
                .append(",\"cycle\":").append(e.cycle());
        Explanation.Gang g = e.gang();
        sb.append(",\n \"gang\":{\"minMember\":").append(g.minMember()).append(",\"members\":").append(g.members())
                .append(",\"running\":").append(g.running()).append(",\"placeable\":").append(g.placeable()).append('}');
        sb.append(",\n \"steps\":[");
        String sep = "";
        for (Step s : e.steps()) {
            sb.append(sep).append("\n  {\"cycle\":").append(s.cycle()).append(",\"action\":").append(JsonReport.str(s.action()))
                    .append(",\"pod\":").append(JsonReport.str(s.pod())).append(",\"node\":").append(JsonReport.str(s.node()))
                    .append(",\"for\":").append(JsonReport.str(s.forPodGroup())).append(",\"rule\":").append(JsonReport.str(s.rule())).append('}');
            sep = ",";
        }
        sb.append("],\n \"shares\":[");
        sep = "";
        for (Share s : e.shares()) {
            sb.append(sep).append("\n  {\"queue\":").append(JsonReport.str(s.queue())).append(",\"resource\":").append(JsonReport.str(s.resource()))
                    .append(",\"deserved\":").append(JsonReport.str(Quantity.format(s.resource(), s.deserved())))
                    .append(",\"allocatedBefore\":").append(JsonReport.str(Quantity.format(s.resource(), s.allocatedBefore())))
                    .append(",\"allocatedAfter\":").append(JsonReport.str(Quantity.format(s.resource(), s.allocatedAfter())))
                    .append(",\"held\":").append(JsonReport.str(Quantity.format(s.resource(), s.held()))).append('}');
            sep = ",";
        }
        sb.append("],\n \"closest\":[");
        sep = "";
        for (NodeGap n : e.closest()) {
            sb.append(sep).append("\n  {\"pod\":").append(JsonReport.str(n.pod())).append(",\"node\":").append(JsonReport.str(n.node()))
                    .append(",\"lacks\":{");
            String s2 = "";
            for (Map.Entry<String, String> q : n.shortfall().asQuantities().entrySet()) {
                sb.append(s2).append(JsonReport.str(q.getKey())).append(':').append(JsonReport.str(q.getValue()));
                s2 = ",";
            }
            sb.append("},\"note\":").append(JsonReport.str(n.note())).append('}');
            sep = ",";
        }
        sb.append("],\n \"holders\":[");
        sep = "";
        for (Map.Entry<String, Integer> h : e.holders().entrySet()) {
            sb.append(sep).append("{\"rule\":").append(JsonReport.str(h.getKey())).append(",\"pods\":").append(h.getValue()).append('}');
            sep = ",";
        }
        sb.append("],\n \"rulesFired\":{");
        sep = "";
        for (Map.Entry<String, List<String>> f : e.rulesFired().entrySet()) {
            sb.append(sep).append("\n  ").append(JsonReport.str(f.getKey())).append(":[");
            String s2 = "";
            for (String r : f.getValue()) {
                sb.append(s2).append(JsonReport.str(r));
                s2 = ",";
            }
            sb.append(']');
            sep = ",";
        }
        return sb.append("}}\n").toString();
    }

    /** QUEUE RESOURCE ALLOCATED DESERVED, with BOUND and HELD when the cycle held capacity for nominated pods. */
    private static List<String[]> shareRows(List<Share> shares) {
        boolean held = shares.stream().anyMatch(s -> s.held() != 0);
        List<String[]> rows = new ArrayList<>();
        rows.add(held ? new String[] {"QUEUE", "RESOURCE", "ALLOCATED", "BOUND", "HELD", "DESERVED"}
                : new String[] {"QUEUE", "RESOURCE", "ALLOCATED", "DESERVED"});
        for (Share s : shares) {
            String r = s.resource();
            String allocated = Quantity.human(r, s.allocatedBefore()) + " -> " + Quantity.human(r, s.allocatedAfter());
            rows.add(held ? new String[] {s.queue(), r, allocated, Quantity.human(r, s.bound()), Quantity.human(r, s.held()),
                    Quantity.human(r, s.deserved())} : new String[] {s.queue(), r, allocated, Quantity.human(r, s.deserved())});
        }
        return rows;
    }

    private static String indent(String s) {
        StringBuilder sb = new StringBuilder();
        for (String line : s.split("\n")) sb.append("  ").append(line).append('\n');
        return sb.toString();
    }

}
