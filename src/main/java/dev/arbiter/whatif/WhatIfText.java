package dev.arbiter.whatif;

import dev.arbiter.json.JsonWriter;
import dev.arbiter.sim.TerminalText;
import dev.arbiter.whatif.Answer.Remedy;
import java.util.List;
import java.util.Map;

/** {@code arbiter whatif}'s output: a table for people, a JSON document for tools (the YAML is rendered from it). */
public final class WhatIfText {
    private WhatIfText() {}

    /** The words for an answer, showing at most {@code max} changes (all when {@code max} is negative). */
    public static String render(Answer a, int max, String note) {
        StringBuilder sb = new StringBuilder();
        if (note != null) for (String line : note.split("\n")) sb.append(TerminalText.safe(line)).append('\n');
        sb.append("Job ").append(safe(a.job())).append(" (queue ").append(safe(a.queue())).append(") at cycle ")
                .append(a.cycle()).append('\n');
        switch (a.verdict()) {
            case NOT_PENDING -> sb.append("  not pending: ").append(safe(a.outcome())).append('\n');
            case STARTS_UNCHANGED -> sb.append("  starts with no change: ").append(safe(a.outcome())).append('\n');
            case CHANGES_FOUND, NONE_IN_REACH -> {
                sb.append("  pending: ").append(safe(a.reason())).append('\n');
                if (a.rule() != null) sb.append("  rule:    ").append(safe(a.rule())).append('\n');
            }
        }
        if (a.verdict() == Answer.Verdict.NONE_IN_REACH) {
            sb.append("\nNo change within reach found. Tried:\n");
            for (String n : a.notFound()) sb.append("  - ").append(safe(n)).append('\n');
        }
        if (a.verdict() == Answer.Verdict.CHANGES_FOUND) {
            List<Remedy> shown = max < 0 ? a.remedies() : a.remedies().subList(0, Math.min(max, a.remedies().size()));
            sb.append("\nWhat would start it (checked with the engine, cheapest first):\n");
            int i = 1;
            for (Remedy r : shown) {
                sb.append(String.format("%2d. [%s] %s%n", i++, r.tier().word(), safe(r.change().words())));
                if (r.change() instanceof Change.JobsEnded j) {
                    for (Change.EndedJob e : j.jobs()) {
                        sb.append("      ").append(safe(e.job())).append(": queue ").append(safe(e.queue())).append(", priority ")
                                .append(e.priority()).append('\n');
                    }
                    if (!j.jobs().isEmpty()) sb.append("      eviction: ").append(safe(j.jobs().get(0).eviction())).append('\n');
                }
                sb.append("      blocks today: ").append(safe(r.blocks())).append('\n');
                sb.append("      then:         ").append(safe(r.outcome())).append('\n');
            }
            if (shown.size() < a.remedies().size()) {
                sb.append("(").append(a.remedies().size() - shown.size()).append(" more; --all shows every one)\n");
            }
        }
        sb.append("\n").append(a.engineCycles()).append(" engine cycles, ").append(a.millis()).append(" ms\n");
        return sb.toString();
    }

    private static String safe(String s) {
        return s == null ? "" : TerminalText.safe(s);
    }

    /** The answer as JSON: every change with its kind and the fields a tool needs to make it. */
    public static String json(Answer a, int max, String note) {
        JsonWriter w = JsonWriter.spaced().startObject();
        w.field("job", a.job()).field("queue", a.queue()).field("cycle", a.cycle())
                .field("verdict", a.verdict().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        if (note != null) w.field("note", note);
        if (a.reason() != null) w.field("reason", a.reason());
        if (a.rule() != null) w.field("rule", a.rule());
        if (a.outcome() != null) w.field("outcome", a.outcome());
        w.name("changes").startArray();
        List<Remedy> shown = max < 0 ? a.remedies() : a.remedies().subList(0, Math.min(max, a.remedies().size()));
        for (Remedy r : shown) {
            w.startObject().field("kind", r.change().kind()).field("change", r.change().words())
                    .field("tier", r.tier().word()).field("cost", r.cost()).field("blocks", r.blocks())
                    .field("outcome", r.outcome());
            fields(w, r.change());
            w.endObject();
        }
        w.endArray();
        w.field("moreChanges", Math.max(0, a.remedies().size() - shown.size()));
        w.name("notFound").startArray();
        for (String n : a.notFound()) w.value(n);
        w.endArray();
        w.field("engineCycles", a.engineCycles()).field("millis", a.millis());
        return w.endObject().toString();
    }

    private static void fields(JsonWriter w, Change c) {
        if (c instanceof Change.CapabilityRaised x) {
            object(w.field("queue", x.queue()), "capability", x.to().asQuantities());
        } else if (c instanceof Change.DeservedRaised x) {
            object(w.field("queue", x.queue()), "deserved", x.to().asQuantities());
        } else if (c instanceof Change.WeightRaised x) {
            w.field("queue", x.queue()).field("weight", x.to());
        } else if (c instanceof Change.JobsEnded x) {
            w.name("jobs").startArray();
            for (Change.EndedJob e : x.jobs()) {
                w.startObject().field("job", e.job()).field("queue", e.queue()).field("priority", e.priority())
                        .field("pods", e.pods());
                object(w, "holds", e.holds().without("pods").asQuantities());
                w.field("eviction", e.eviction()).endObject();
            }
            w.endArray();
        } else if (c instanceof Change.NodesAdded x) {
            w.field("count", x.count());
            if (x.like() != null) w.field("like", x.like());
            object(w, "allocatable", x.allocatable().asQuantities());
            object(w, "labels", new java.util.TreeMap<>(x.labels()));
        } else if (c instanceof Change.TopologyRelaxed x) {
            w.field("podGroup", x.job()).field("networkTopology", x.to() == null ? "none" : x.to().toString());
        } else if (c instanceof Change.TopologyAnnotationDropped x) {
            w.field("annotation", x.annotation());
        } else if (c instanceof Change.SelectorDropped x) {
            w.field("nodeSelectorKey", x.key());
        } else if (c instanceof Change.TermDropped x) {
            w.field("term", x.what()).field("index", x.index());
        } else if (c instanceof Change.TaintTolerated x) {
            w.field("taint", x.taint().key() + (x.taint().value() == null || x.taint().value().isEmpty() ? ""
                    : "=" + x.taint().value()) + ":" + x.taint().effect());
        } else if (c instanceof Change.SettingChanged x) {
            w.field("setting", x.setting()).field("from", x.from()).field("to", x.to());
        }
    }

    private static void object(JsonWriter w, String name, Map<String, String> m) {
        w.name(name).startObject();
        m.forEach(w::field);
        w.endObject();
    }
}
