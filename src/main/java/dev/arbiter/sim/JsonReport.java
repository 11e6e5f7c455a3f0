package dev.arbiter.sim;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.Eviction;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.json.JsonWriter;
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
        return write(r, null);
    }

    /**
     * {@link #write(SimulationResult)}, with {@code more} writing further fields of the document after {@code
     * "notices"} (e.g. {@code simulate}'s start-time estimates); none when null.
     */
    public static String write(SimulationResult r, java.util.function.Consumer<JsonWriter> more) {
        JsonWriter w = JsonWriter.compact().startObject().name("cycles").startArray();
        for (CycleResult c : r.cycles()) {
            w.nextLine(2).startObject().field("cycle", c.cycle()).name("bindings").startArray();
            for (Binding b : c.bindings()) {
                w.nextLine(4).startObject().field("pod", b.pod()).field("node", b.node()).field("rule", b.rule()).endObject();
            }
            w.endArray().name("evictions").startArray();
            for (Eviction e : c.evictions()) {
                w.nextLine(4).startObject().field("pod", e.pod()).field("node", e.node()).field("action", e.action())
                        .field("for", e.forPodGroup()).field("rule", e.rule()).endObject();
            }
            w.endArray().endObject();
        }
        w.endArray().nextLine(1).name("pods").startArray();
        for (PodOutcome p : r.pods()) {
            w.nextLine(2).startObject().field("pod", p.pod()).field("phase", p.phase()).field("node", p.node()).endObject();
        }
        w.endArray().nextLine(1).name("podGroups").startArray();
        for (PodGroupStatus g : r.podGroups()) {
            w.nextLine(2).startObject().field("podGroup", g.podGroup()).field("queue", g.queue()).field("phase", g.phase())
                    .field("minMember", g.minMember()).field("running", g.running()).field("reason", g.reason());
            if (g.domain() != null) w.field("domain", g.domain());
            w.endObject();
        }
        w.endArray().nextLine(1).name("queues").startArray();
        for (QueueStatus q : r.queues()) {
            w.nextLine(2).startObject().field("queue", q.queue()).field("parent", q.parent() == null ? "root" : q.parent())
                    .field("weight", q.weight()).field("state", q.state());
            quantities(w.name("deserved"), q.deserved());
            quantities(w.name("allocated"), q.allocated());
            w.endObject();
        }
        w.endArray().nextLine(1).name("notices").startArray();
        for (String n : r.notices()) w.nextLine(2).value(n);
        w.endArray();
        if (more != null) more.accept(w);
        return w.nextLine(1).field("stable", r.stable()).endObject().nextLine(0).toString();
    }

    private static void quantities(JsonWriter w, Resources r) {
        w.startObject();
        for (Map.Entry<String, String> e : r.asQuantities().entrySet()) w.field(e.getKey(), e.getValue());
        w.endObject();
    }
}
