package dev.arbiter.sim;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Resources;
import java.util.Map;

/**
 * Writes a simulation as the documented JSON shape:
 * {@code {"cycles":[{"cycle","bindings":[{"pod","node","rule"}],"evictions":[{"pod","node","action","for","rule"}]}],
 * "pods":[{"pod","phase","node"}],"podGroups":[{"podGroup","queue","phase","minMember","running","reason"}],
 * "queues":[{"queue","parent","weight","state","deserved","allocated"}],"notices":[line],"stable":true|false}},
 * quantities as Kubernetes quantity strings; {@code parent} is {@code root} for a top-level queue; {@code notices}
 * are the one-line notices about the input (kinds skipped, suspicious objects) that the table output prints first;
 * {@code stable} is false when the run stopped at the cycle limit.
 */
public final class JsonReport {
    private JsonReport() {}

    public static String write(SimulationResult r) {
        StringBuilder sb = new StringBuilder("{\"cycles\":[");
        String sep = "";
        for (CycleResult c : r.cycles()) {
            sb.append(sep).append("\n  {\"cycle\":").append(c.cycle()).append(",\"bindings\":[");
            String s2 = "";
            for (Binding b : c.bindings()) {
                sb.append(s2).append("\n    {\"pod\":").append(str(b.pod())).append(",\"node\":").append(str(b.node()))
                        .append(",\"rule\":").append(str(b.rule())).append('}');
                s2 = ",";
            }
            sb.append("],\"evictions\":[");
            s2 = "";
            for (Eviction e : c.evictions()) {
                sb.append(s2).append("\n    {\"pod\":").append(str(e.pod())).append(",\"node\":").append(str(e.node()))
                        .append(",\"action\":").append(str(e.action())).append(",\"for\":").append(str(e.forPodGroup()))
                        .append(",\"rule\":").append(str(e.rule())).append('}');
                s2 = ",";
            }
            sb.append("]}");
            sep = ",";
        }
        sb.append("],\n \"pods\":[");
        sep = "";
        for (PodOutcome p : r.pods()) {
            sb.append(sep).append("\n  {\"pod\":").append(str(p.pod())).append(",\"phase\":").append(str(p.phase()))
                    .append(",\"node\":").append(str(p.node())).append('}');
            sep = ",";
        }
        sb.append("],\n \"podGroups\":[");
        sep = "";
        for (PodGroupStatus g : r.podGroups()) {
            sb.append(sep).append("\n  {\"podGroup\":").append(str(g.podGroup())).append(",\"queue\":").append(str(g.queue()))
                    .append(",\"phase\":").append(str(g.phase())).append(",\"minMember\":").append(g.minMember())
                    .append(",\"running\":").append(g.running()).append(",\"reason\":").append(str(g.reason()))
                    .append(g.domain() == null ? "" : ",\"domain\":" + str(g.domain())).append('}');
            sep = ",";
        }
        sb.append("],\n \"queues\":[");
        sep = "";
        for (QueueStatus q : r.queues()) {
            sb.append(sep).append("\n  {\"queue\":").append(str(q.queue()))
                    .append(",\"parent\":").append(str(q.parent() == null ? "root" : q.parent()))
                    .append(",\"weight\":").append(q.weight())
                    .append(",\"state\":").append(str(q.state())).append(",\"deserved\":").append(quantities(q.deserved()))
                    .append(",\"allocated\":").append(quantities(q.allocated())).append('}');
            sep = ",";
        }
        sb.append("],\n \"notices\":[");
        sep = "";
        for (String n : r.notices()) {
            sb.append(sep).append("\n  ").append(str(n));
            sep = ",";
        }
        return sb.append("],\n \"stable\":").append(r.stable()).append("}\n").toString();
    }

    private static String quantities(Resources r) {
        StringBuilder sb = new StringBuilder("{");
        String sep = "";
        for (Map.Entry<String, String> e : r.asQuantities().entrySet()) {
            sb.append(sep).append(str(e.getKey())).append(':').append(str(e.getValue()));
            sep = ",";
        }
        return sb.append('}').toString();
    }

    /** A JSON string literal, or null (shared by every hand-written JSON output). */
    public static String str(String s) {
        if (s == null) return "null";
        StringBuilder sb = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (ch < 0x20) sb.append(String.format("\\u%04x", (int) ch));
                    else sb.append(ch);
                }
            }
        }
        return sb.append('"').toString();
    }
}
