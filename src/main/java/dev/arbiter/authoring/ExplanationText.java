package dev.arbiter.authoring;

import dev.arbiter.authoring.Explanation.NodeGap;
import dev.arbiter.authoring.Explanation.Share;
import dev.arbiter.authoring.Explanation.Step;
import dev.arbiter.json.JsonWriter;
import dev.arbiter.model.Quantity;
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
        sb.append("  gang:     ").append(g.placeable()).append(" placeable (min ").append(g.minMember()).append("), ")
                .append(g.running()).append(" running of ").append(g.members()).append(" members\n");
        if (e.start() != null) sb.append("  estimated start: ").append(e.start().line()).append('\n');

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
     * "rulesFired":{subject:[rule]}}}, amounts as Kubernetes quantity strings; with a forecast, {@code
     * "estimatedStart":{"at","in","none","waitsOn","text"}} after {@code "gang"} ({@code at} on the simulation's clock
     * and {@code in} in seconds, both null when there is none; {@code none} is null, {@code waitsOnUnknownEnd},
     * {@code beyondHorizon} or {@code never}).
     */
    public static String json(Explanation e) {
        return json(e, null);
    }

    /**
     * {@link #json(Explanation)} with {@code "notices":[...]} after {@code "cycle"} (the manifests' notice lines, as
     * {@code simulate} prints them); without it when {@code notices} is null.
     */
    public static String json(Explanation e, List<String> notices) {
        JsonWriter w = JsonWriter.compact().startObject().field("subject", e.subject()).field("podGroup", e.podGroup())
                .field("queue", e.queue()).field("outcome", e.outcome()).field("reason", e.reason()).field("rule", e.rule())
                .field("cycle", e.cycle());
        if (notices != null) {
            w.nextLine(1).name("notices").startArray();
            for (String n : notices) w.nextLine(2).value(n);
            w.endArray();
        }
        Explanation.Gang g = e.gang();
        w.nextLine(1).name("gang").startObject().field("minMember", g.minMember()).field("members", g.members())
                .field("running", g.running()).field("placeable", g.placeable()).endObject();
        if (e.start() != null) {
            dev.arbiter.forecast.StartEstimate s = e.start().estimate();
            w.nextLine(1).name("estimatedStart").startObject();
            if (s.isKnown()) w.field("at", s.at()).field("in", s.secondsAfter(e.start().forecast().now()));
            else w.name("at").nullValue().name("in").nullValue();
            w.field("none", dev.arbiter.forecast.StartWords.code(s)).field("waitsOn", s.waitsOn())
                    .field("text", e.start().line()).endObject();
        }
        w.nextLine(1).name("steps").startArray();
        for (Step s : e.steps()) {
            w.nextLine(2).startObject().field("cycle", s.cycle()).field("action", s.action()).field("pod", s.pod())
                    .field("node", s.node()).field("for", s.forPodGroup()).field("rule", s.rule()).endObject();
        }
        w.endArray().nextLine(1).name("shares").startArray();
        for (Share s : e.shares()) {
            w.nextLine(2).startObject().field("queue", s.queue()).field("resource", s.resource())
                    .field("deserved", Quantity.format(s.resource(), s.deserved()))
                    .field("allocatedBefore", Quantity.format(s.resource(), s.allocatedBefore()))
                    .field("allocatedAfter", Quantity.format(s.resource(), s.allocatedAfter()))
                    .field("held", Quantity.format(s.resource(), s.held())).endObject();
        }
        w.endArray().nextLine(1).name("closest").startArray();
        for (NodeGap n : e.closest()) {
            w.nextLine(2).startObject().field("pod", n.pod()).field("node", n.node()).name("lacks").startObject();
            for (Map.Entry<String, String> q : n.shortfall().asQuantities().entrySet()) w.field(q.getKey(), q.getValue());
            w.endObject().field("note", n.note()).endObject();
        }
        w.endArray().nextLine(1).name("holders").startArray();
        for (Map.Entry<String, Integer> h : e.holders().entrySet()) {
            w.startObject().field("rule", h.getKey()).field("pods", h.getValue()).endObject();
        }
        w.endArray().nextLine(1).name("rulesFired").startObject();
        for (Map.Entry<String, List<String>> f : e.rulesFired().entrySet()) {
            w.nextLine(2).name(f.getKey()).startArray();
            for (String r : f.getValue()) w.value(r);
            w.endArray();
        }
        return w.endObject().endObject().nextLine(0).toString();
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
