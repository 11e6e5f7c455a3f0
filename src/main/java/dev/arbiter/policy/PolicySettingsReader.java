package dev.arbiter.policy;

import dev.arbiter.policy.PolicySettings.Churn;
import dev.arbiter.policy.PolicySettings.Cycle;
import dev.arbiter.policy.PolicySettings.Limits;
import dev.arbiter.policy.PolicySettings.Orders;
import dev.arbiter.policy.PolicySettings.Scoring;
import dev.arbiter.policy.PolicySettings.Shares;
import dev.arbiter.policy.PolicySettings.Topology;
import dev.arbiter.policy.PolicySettings.Victims;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads {@code policy.yaml} onto a base: every field the file states replaces the base's, everything else stays, so a
 * pack's {@code policy.yaml} states only what it changes. A wrong field is one {@link SettingsException} line,
 * {@code file:line: field: problem}, e.g. {@code rules/policy.yaml:7: victims.order[2]: unknown victim order key
 * "youngest first" (known: ...)}; so is a field Arbiter does not know.
 *
 * <pre>
 * churn:    {minRuntime: 60s, minRuntimeAgainstPreemption: false, maxEvictionsPerCycle: 100,
 *            maxEvictionsPerQueuePerCycle: 20, hysteresis: true}
 * order:    {queues: [priority desc, share asc, name asc], jobs: [...], tasks: [...]}
 * victims:  {order: [surplus first, ...], breakingGang: evict whole gang, gangBelowFloor: spare,
 *            nonPreemptibleFrom: off}
 * scoring:  {mode: binpack, weights: {nvidia.com/gpu: 10, cpu: 1}}
 * shares:   {ignoredResources: [pods], usageHalfLife: off, usageSamplingInterval: 5m}
 * cycle:    {admission: interleaved, nominatedFirst: true, evictions: [preempt, reclaim]}
 * limits:   {firingsPerFact: 20, minFirings: 200000, deadline: 30s}
 * topology: {levels: [block, rack], choice: best fit, preferFullerDomains: true}
 * runtime:  {defaultByQueue: {team-a: 2h}, defaultByPriorityClass: {p2: 4h}}
 * reservation: {after: off, backfill: true}
 * </pre>
 */
public final class PolicySettingsReader {
    private static final Pattern DURATION = Pattern.compile("([0-9]+)(ms|s|m|h)?");

    /** A problem in a settings file, as one {@code file:line: field: problem} line. */
    public static final class SettingsException extends IllegalArgumentException {
        public SettingsException(String message) {
            super(message);
        }
    }

    private final String source;

    private PolicySettingsReader(String source) {
        this.source = source;
    }

    /** The settings {@code text} (named {@code source} in messages) states, on top of {@code base}. */
    public static PolicySettings read(String text, String source, PolicySettings base) {
        Node root;
        try {
            LoaderOptions options = new LoaderOptions();
            root = new Yaml(options).compose(new java.io.StringReader(text));
        } catch (MarkedYAMLException e) {
            int line = e.getProblemMark() == null ? 1 : e.getProblemMark().getLine() + 1;
            throw new SettingsException(source + ":" + line + ": invalid YAML: " + e.getProblem());
        } catch (YAMLException e) {
            throw new SettingsException(source + ": invalid YAML: " + e.getMessage());
        }
        if (root == null || (root instanceof ScalarNode s && (Tag.NULL.equals(s.getTag()) || s.getValue().isBlank()))) return base;
        return new PolicySettingsReader(source).settings(root, base);
    }

    private PolicySettings settings(Node root, PolicySettings base) {
        Map<String, Node> top = mapping(root, "", List.of("churn", "order", "victims", "scoring", "shares", "cycle", "limits", "topology",
                "runtime", "reservation"));
        PolicySettings read = new PolicySettings(
                churn(top.get("churn"), base.churn()),
                orders(top.get("order"), base.orders()),
                victims(top.get("victims"), base.victims()),
                scoring(top.get("scoring"), base.scoring()),
                shares(top.get("shares"), base.shares()),
                cycle(top.get("cycle"), base.cycle()),
                limits(top.get("limits"), base.limits()),
                topology(top.get("topology"), base.topology()),
                runtime(top.get("runtime"), base.runtime()),
                reservation(top.get("reservation"), base.reservation()));
        checkUsageOrder(read, top);
        return read;
    }

    /** The queue order key {@code usage} ranks by decayed past usage: without a half-life there is none. */
    private void checkUsageOrder(PolicySettings read, Map<String, Node> top) {
        if (read.shares().tracksUsage()) return;
        for (OrderKey<QueueKey> k : read.orders().queues()) {
            if (k.key() != QueueKey.USAGE) continue;
            Node at = top.containsKey("order") ? top.get("order") : top.get("shares");
            throw error(at, "order.queues", "the key usage ranks queues by their decayed past usage, which is tracked only"
                    + " with a half-life: set shares.usageHalfLife (e.g. 1h)");
        }
    }

    private Topology topology(Node n, Topology b) {
        if (n == null) return b;
        Map<String, Node> m = mapping(n, "topology", List.of("levels", "choice", "preferFullerDomains"));
        List<String> levels = b.levels();
        if (m.containsKey("levels")) {
            levels = list(m.get("levels"), "topology.levels", t -> {
                String key = t.trim();
                if (key.isEmpty() || key.contains(" ")) throw new IllegalArgumentException("must be a node label key, got \"" + t + "\"");
                return key;
            });
            if (new LinkedHashSet<>(levels).size() != levels.size()) {
                throw error(m.get("levels"), "topology.levels", "names a label key twice: " + levels);
            }
        }
        return new Topology(levels,
                m.containsKey("choice") ? word(m.get("choice"), "topology.choice", DomainChoice.class, "domain choice") : b.choice(),
                bool(m.get("preferFullerDomains"), "topology.preferFullerDomains", b.preferFullerDomains()));
    }

    private PolicySettings.Runtime runtime(Node n, PolicySettings.Runtime b) {
        if (n == null) return b;
        Map<String, Node> m = mapping(n, "runtime", List.of("defaultByQueue", "defaultByPriorityClass"));
        return new PolicySettings.Runtime(
                m.containsKey("defaultByQueue") ? durations(m.get("defaultByQueue"), "runtime.defaultByQueue") : b.defaultByQueue(),
                m.containsKey("defaultByPriorityClass") ? durations(m.get("defaultByPriorityClass"), "runtime.defaultByPriorityClass")
                        : b.defaultByPriorityClass());
    }

    /** A mapping of names to durations of at least one second, in seconds. */
    private Map<String, Long> durations(Node n, String path) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (NodeTuple t : tuples(n, path)) {
            String name = scalar(t.getKeyNode(), path);
            Duration d = duration(t.getValueNode(), path + "." + name);
            if (d.toSeconds() < 1) throw error(t.getValueNode(), path + "." + name, "must be at least 1s");
            out.put(name, d.toSeconds());
        }
        return out;
    }

    private PolicySettings.Reservation reservation(Node n, PolicySettings.Reservation b) {
        if (n == null) return b;
        Map<String, Node> m = mapping(n, "reservation", List.of("after", "backfill"));
        Duration after = b.after();
        if (m.containsKey("after")) {
            Node a = m.get("after");
            after = "off".equals(scalar(a, "reservation.after").trim()) ? null : duration(a, "reservation.after");
        }
        return new PolicySettings.Reservation(after, bool(m.get("backfill"), "reservation.backfill", b.backfill()));
    }

    private Churn churn(Node n, Churn b) {
        if (n == null) return b;
        Map<String, Node> m = mapping(n, "churn", List.of("minRuntime", "minRuntimeAgainstPreemption", "maxEvictionsPerCycle",
                "maxEvictionsPerQueuePerCycle", "hysteresis"));
        return new Churn(
                m.containsKey("minRuntime") ? duration(m.get("minRuntime"), "churn.minRuntime").toSeconds() : b.minRuntimeSeconds(),
                bool(m.get("minRuntimeAgainstPreemption"), "churn.minRuntimeAgainstPreemption", b.minRuntimeAgainstPreemption()),
                count(m.get("maxEvictionsPerCycle"), "churn.maxEvictionsPerCycle", b.maxEvictionsPerCycle()),
                count(m.get("maxEvictionsPerQueuePerCycle"), "churn.maxEvictionsPerQueuePerCycle", b.maxEvictionsPerQueuePerCycle()),
                bool(m.get("hysteresis"), "churn.hysteresis", b.hysteresis()));
    }

    private Orders orders(Node n, Orders b) {
        if (n == null) return b;
        Map<String, Node> m = mapping(n, "order", List.of("queues", "jobs", "tasks"));
        return new Orders(
                m.containsKey("queues") ? list(m.get("queues"), "order.queues", t -> OrderKey.parse(QueueKey.class, t, "queue order")) : b.queues(),
                m.containsKey("jobs") ? list(m.get("jobs"), "order.jobs", t -> OrderKey.parse(JobKey.class, t, "job order")) : b.jobs(),
                m.containsKey("tasks") ? list(m.get("tasks"), "order.tasks", t -> OrderKey.parse(TaskKey.class, t, "task order")) : b.tasks());
    }

    private Victims victims(Node n, Victims b) {
        if (n == null) return b;
        Map<String, Node> m = mapping(n, "victims", List.of("order", "breakingGang", "gangBelowFloor", "nonPreemptibleFrom"));
        return new Victims(
                m.containsKey("order") ? list(m.get("order"), "victims.order", t -> Words.parse(VictimKey.class, t, "victim order key")) : b.order(),
                m.containsKey("breakingGang") ? word(m.get("breakingGang"), "victims.breakingGang", BreakingGang.class, "breaking-gang rule")
                        : b.breakingGang(),
                m.containsKey("gangBelowFloor") ? word(m.get("gangBelowFloor"), "victims.gangBelowFloor", GangBelowFloor.class,
                        "gang-below-floor rule") : b.gangBelowFloor(),
                m.containsKey("nonPreemptibleFrom") ? priorityOrOff(m.get("nonPreemptibleFrom"), "victims.nonPreemptibleFrom")
                        : b.nonPreemptibleFrom());
    }

    /** A priority value (a whole number, as a PriorityClass's {@code value}), or {@code off} for none (null). */
    private Integer priorityOrOff(Node n, String path) {
        String v = scalar(n, path).trim();
        if (v.equals("off")) return null;
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw error(n, path, "must be a priority (a whole number, as a PriorityClass's value) or off, got " + v);
        }
    }

    private Scoring scoring(Node n, Scoring b) {
        if (n == null) return b;
        Map<String, Node> m = mapping(n, "scoring", List.of("mode", "weights"));
        Map<String, Integer> weights = b.weights();
        if (m.containsKey("weights")) {
            weights = new LinkedHashMap<>();
            for (NodeTuple t : tuples(m.get("weights"), "scoring.weights")) {
                String resource = scalar(t.getKeyNode(), "scoring.weights");
                int w = (int) count(t.getValueNode(), "scoring.weights." + resource, 0);
                weights.put(resource, w);
            }
        }
        return new Scoring(m.containsKey("mode") ? word(m.get("mode"), "scoring.mode", ScoringMode.class, "scoring mode")
                : b.mode(), weights);
    }

    private Shares shares(Node n, Shares b) {
        if (n == null) return b;
        Map<String, Node> m = mapping(n, "shares", List.of("ignoredResources", "usageHalfLife", "usageSamplingInterval"));
        Set<String> ignored = m.containsKey("ignoredResources")
                ? new LinkedHashSet<>(list(m.get("ignoredResources"), "shares.ignoredResources", t -> t)) : b.ignoredResources();
        Duration halfLife = b.usageHalfLife();
        if (m.containsKey("usageHalfLife")) {
            Node h = m.get("usageHalfLife");
            halfLife = "off".equals(scalar(h, "shares.usageHalfLife").trim()) ? null : duration(h, "shares.usageHalfLife");
            if (halfLife != null && halfLife.toSeconds() < 1) {
                throw error(h, "shares.usageHalfLife", "must be at least 1s, or off");
            }
        }
        Duration sampling = b.usageSamplingInterval();
        if (m.containsKey("usageSamplingInterval")) {
            sampling = duration(m.get("usageSamplingInterval"), "shares.usageSamplingInterval");
            if (sampling.toSeconds() < 1) throw error(m.get("usageSamplingInterval"), "shares.usageSamplingInterval", "must be at least 1s");
        }
        return new Shares(ignored, halfLife, sampling);
    }

    private Cycle cycle(Node n, Cycle b) {
        if (n == null) return b;
        Map<String, Node> m = mapping(n, "cycle", List.of("admission", "nominatedFirst", "evictions"));
        List<EvictionAction> evictions = b.evictions();
        if (m.containsKey("evictions")) {
            evictions = list(m.get("evictions"), "cycle.evictions", t -> Words.parse(EvictionAction.class, t, "eviction action"));
            if (new LinkedHashSet<>(evictions).size() != evictions.size()) {
                throw error(m.get("evictions"), "cycle.evictions", "names an action twice: " + evictions);
            }
        }
        return new Cycle(
                m.containsKey("admission") ? word(m.get("admission"), "cycle.admission", AdmissionOrder.class, "admission order") : b.admission(),
                bool(m.get("nominatedFirst"), "cycle.nominatedFirst", b.nominatedFirst()),
                evictions);
    }

    private Limits limits(Node n, Limits b) {
        if (n == null) return b;
        Map<String, Node> m = mapping(n, "limits", List.of("firingsPerFact", "minFirings", "deadline"));
        Duration deadline = m.containsKey("deadline") ? duration(m.get("deadline"), "limits.deadline") : b.deadline();
        if (deadline.isZero()) throw error(m.get("deadline"), "limits.deadline", "must be more than 0");
        long perFact = count(m.get("firingsPerFact"), "limits.firingsPerFact", b.firingsPerFact());
        long min = count(m.get("minFirings"), "limits.minFirings", b.minFirings());
        if (perFact < 1 || min < 1) throw error(n, "limits", "firingsPerFact and minFirings must be at least 1");
        return new Limits(perFact, min, deadline);
    }

    // ---- YAML helpers ----------------------------------------------------------------------------------------------

    /** The keys of a mapping; a key that is not {@code known} is an error naming the known ones. */
    private Map<String, Node> mapping(Node n, String path, List<String> known) {
        Map<String, Node> out = new LinkedHashMap<>();
        for (NodeTuple t : tuples(n, path)) {
            String key = scalar(t.getKeyNode(), path);
            String field = path.isEmpty() ? key : path + "." + key;
            if (!known.contains(key)) throw error(t.getKeyNode(), field, "unknown setting (known: " + String.join(", ", known) + ")");
            if (out.put(key, t.getValueNode()) != null) throw error(t.getKeyNode(), field, "stated twice");
        }
        return out;
    }

    private List<NodeTuple> tuples(Node n, String path) {
        if (!(n instanceof MappingNode m)) throw error(n, path.isEmpty() ? "settings" : path, "must be a mapping");
        return m.getValue();
    }

    private String scalar(Node n, String path) {
        if (!(n instanceof ScalarNode s)) throw error(n, path, "must be a single value");
        return s.getValue();
    }

    private <T> List<T> list(Node n, String path, Function<String, T> item) {
        if (!(n instanceof SequenceNode s)) throw error(n, path, "must be a list");
        List<T> out = new ArrayList<>();
        int i = 0;
        for (Node v : s.getValue()) {
            String at = path + "[" + i++ + "]";
            try {
                out.add(item.apply(scalar(v, at)));
            } catch (IllegalArgumentException e) {
                if (e instanceof SettingsException) throw e;
                throw error(v, at, e.getMessage());
            }
        }
        return out;
    }

    private <E extends Enum<E> & Words.Worded> E word(Node n, String path, Class<E> type, String what) {
        try {
            return Words.parse(type, scalar(n, path), what);
        } catch (IllegalArgumentException e) {
            if (e instanceof SettingsException) throw e;
            throw error(n, path, e.getMessage());
        }
    }

    private boolean bool(Node n, String path, boolean fallback) {
        if (n == null) return fallback;
        String v = scalar(n, path);
        if (v.equals("true")) return true;
        if (v.equals("false")) return false;
        throw error(n, path, "must be true or false, got " + v);
    }

    private long count(Node n, String path, long fallback) {
        if (n == null) return fallback;
        String v = scalar(n, path);
        try {
            long c = Long.parseLong(v.trim());
            if (c < 0) throw error(n, path, "must not be negative, got " + v);
            return c;
        } catch (NumberFormatException e) {
            throw error(n, path, "must be a whole number, got " + v);
        }
    }

    private int count(Node n, String path, int fallback) {
        long c = count(n, path, (long) fallback);
        if (c > Integer.MAX_VALUE) throw error(n, path, "is too large, got " + c);
        return (int) c;
    }

    /** {@code 90}, {@code 90s}, {@code 500ms}, {@code 10m}, {@code 1h}: a plain number is seconds. */
    private Duration duration(Node n, String path) {
        String v = scalar(n, path).trim();
        Matcher m = DURATION.matcher(v);
        if (!m.matches()) throw error(n, path, "must be a duration such as 60s, 500ms, 10m or 1h, got " + v);
        long amount;
        try {
            amount = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw error(n, path, "is too large, got " + v);
        }
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofSeconds(amount);
        };
    }

    private SettingsException error(Node n, String path, String problem) {
        int line = n == null || n.getStartMark() == null ? 0 : n.getStartMark().getLine() + 1;
        return new SettingsException(source + ":" + line + ": " + path + ": " + problem);
    }
}
