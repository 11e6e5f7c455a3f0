package dev.arbiter.cli;

import dev.arbiter.sim.TerminalText;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code arbiter shadow-report}: what a running {@code arbiter run --shadow-rules DIR} has found, read from its
 * {@code /shadow} endpoint and printed as a table (the running totals, the rules behind the differences, the last
 * cycles that differed) or as the endpoint's JSON or YAML. Exit 0; 1 when the endpoint cannot be read or serves no
 * shadow.
 *
 * <p>Offline, {@code shadow-report --shadow-rules DIR [--rules DIR] PATH...} does the same on manifests: the simulator
 * runs {@code --rules} to a stable state and the shadow decides beside it on every cycle's snapshot, as live (its
 * differences are one-cycle differences along the active policy's run; {@code arbiter diff} runs both to the end).
 */
@Command(name = "shadow-report", mixinStandardHelpOptions = true,
        description = "Print what the shadow policy of a running 'arbiter run --shadow-rules' decided differently, and the rules behind it.")
final class ShadowReportCommand implements Callable<Integer> {
    /** Differences printed per cycle in the table (json and yaml hold what the endpoint holds). */
    static final int TABLE_ROWS = 20;

    @Spec
    CommandSpec spec;

    @Option(names = "--url", paramLabel = "URL", defaultValue = "http://127.0.0.1:8080/shadow",
            description = "The /shadow endpoint of the running arbiter (default: ${DEFAULT-VALUE}, run's --metrics-port;"
                    + " kubectl port-forward to reach a pod).")
    String url;

    @Option(names = "--token-file", paramLabel = "PATH",
            description = "A bearer token to send, for an arbiter run with --metrics-secure (a caller allowed to get /metrics).")
    Path tokenFile;

    @Option(names = "--insecure-skip-tls-verify",
            description = "Accept any certificate over https (--metrics-secure's self-signed one).")
    boolean insecure;

    @Mixin
    OutputOption output;

    @Option(names = "--rules", paramLabel = "DIR", description = "Offline: the active policy (default: ${DEFAULT-VALUE}).")
    Path rules = RulesLocation.defaultFolder();

    @Option(names = "--shadow-rules", paramLabel = "DIR", description = "Offline: the candidate policy, beside --rules on PATH.")
    Path shadowRules;

    @Mixin
    SimulationOptions sim;

    @picocli.CommandLine.Parameters(arity = "0..*", paramLabel = "PATH",
            description = "Offline: manifest files or folders to simulate (with --shadow-rules) instead of reading --url.")
    List<Path> paths;

    @Override
    public Integer call() throws Exception {
        if (output.problem() != null) return Main.usage(spec, output.problem());
        if (paths != null && !paths.isEmpty() || shadowRules != null) return offline();
        URI uri;
        try {
            uri = URI.create(url);
            if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))) {
                return Main.usage(spec, "--url must be an http or https URL, got " + url);
            }
        } catch (IllegalArgumentException e) {
            return Main.usage(spec, "--url must be an http or https URL, got " + url);
        }
        String token = null;
        if (tokenFile != null) {
            try {
                token = Files.readString(tokenFile).trim();
            } catch (IOException e) {
                return Main.usage(spec, "--token-file: " + tokenFile + ": cannot read it (" + e.getClass().getSimpleName() + ")");
            }
        }
        PrintWriter err = spec.commandLine().getErr();
        String body;
        try {
            HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
            if (insecure) b.sslContext(trustingAll());
            HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET();
            if (token != null) request.header("Authorization", "Bearer " + token);
            HttpResponse<String> response = b.build().send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                err.println("error: " + url + " answered " + response.statusCode() + ": " + TerminalText.safe(response.body().strip()));
                err.flush();
                return 1;
            }
            body = response.body();
        } catch (IOException e) {
            err.println("error: " + url + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                    + " (is arbiter run --shadow-rules running, with this --metrics-port?)");
            err.flush();
            return 1;
        }
        String document = output.document(() -> body);
        PrintWriter out = spec.commandLine().getOut();
        out.print(document != null ? document : table(new ObjectMapper().readTree(body), output.wide()));
        out.flush();
        return 0;
    }

    /** {@code --shadow-rules DIR PATH...}: the shadow beside the simulator's run of {@code --rules}. */
    private int offline() throws Exception {
        if (shadowRules == null) return Main.usage(spec, "PATH needs --shadow-rules DIR (the candidate to run beside --rules)");
        if (paths == null || paths.isEmpty()) return Main.usage(spec, "--shadow-rules needs PATH (manifest files or folders)");
        if (sim.problem() != null) return Main.usage(spec, sim.problem());
        if (RulesLocation.problem("--rules", rules) != null) return Main.usage(spec, RulesLocation.problem("--rules", rules));
        if (RulesLocation.problem("--shadow-rules", shadowRules) != null) {
            return Main.usage(spec, RulesLocation.problem("--shadow-rules", shadowRules));
        }
        dev.arbiter.model.Manifests manifests = dev.arbiter.manifest.ManifestLoader.load(paths);
        dev.arbiter.engine.rules.RuleBook shadowBook = dev.arbiter.engine.rules.RuleBook.load(shadowRules);
        dev.arbiter.engine.rules.RuleBook book = dev.arbiter.engine.rules.RuleBook.load(rules);
        String json;
        try (dev.arbiter.live.ShadowPolicy shadow = new dev.arbiter.live.ShadowPolicy(shadowRules.toString(), shadowBook,
                sim.schedulerConfig(), false, new dev.arbiter.live.Metrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()),
                Duration.ofDays(1)).quiet()) {
            dev.arbiter.sim.SimulationResult r = new dev.arbiter.sim.Simulator(new dev.arbiter.engine.cycle.Scheduler(book,
                    sim.schedulerConfig())).run(manifests, sim.simulation(false),
                    (snapshot, result) -> shadow.evaluateNow(result.cycle(), snapshot, result));
            Main.warnIfUnsettled(spec, r, sim.maxCycles);
            json = shadow.json();
        }
        String document = output.document(() -> json);
        PrintWriter out = spec.commandLine().getOut();
        out.print(document != null ? document : table(new ObjectMapper().readTree(json), output.wide()));
        out.flush();
        return 0;
    }

    /** The endpoint's document as tables, for people. */
    static String table(JsonNode doc, boolean wide) {
        int cell = wide ? Integer.MAX_VALUE : 48;
        StringBuilder sb = new StringBuilder();
        sb.append("Shadow rules ").append(text(doc.path("shadowRules"))).append(" (generation ")
                .append(text(doc.path("shadowGeneration"))).append(")\n");
        if (!doc.path("stuck").isNull() && !doc.path("stuck").isMissingNode()) {
            sb.append("STUCK: ").append(text(doc.path("stuck"))).append(" (every later cycle is skipped)\n");
        }
        JsonNode totals = doc.path("totals");
        sb.append("Cycles: ").append(counts(totals.path("cycles"))).append('\n');
        sb.append("Differences: ").append(counts(totals.path("differences"))).append("\n\n");
        List<String[]> rules = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : totals.path("rules").properties()) {
            int colon = e.getKey().indexOf(": ");
            rules.add(new String[] {colon < 0 ? "" : e.getKey().substring(0, colon),
                    colon < 0 ? e.getKey() : e.getKey().substring(colon + 2), e.getValue().asString()});
        }
        if (rules.isEmpty()) {
            sb.append("No rule made a differing decision yet.\n");
        } else {
            sb.append(columns(new String[] {"SIDE", "RULE", "DIFFERENCES"}, rules, Integer.MAX_VALUE));
        }
        for (JsonNode cycle : doc.path("cycles")) {
            int first = cycle.path("firstCycle").asInt(cycle.path("cycle").asInt());
            sb.append(first == cycle.path("cycle").asInt() ? "\nCycle " : "\nCycles " + first + " to ")
                    .append(cycle.path("cycle").asString()).append(" (").append(text(cycle.path("time")))
                    .append(", ").append(text(cycle.path("result"))).append(", ").append(cycle.path("millis").asString())
                    .append(" ms)");
            if (!cycle.path("error").isNull()) {
                sb.append(": ").append(text(cycle.path("error"))).append('\n');
                continue;
            }
            sb.append(": ").append(counts(cycle.path("counts"))).append('\n');
            List<String[]> rows = new ArrayList<>();
            for (JsonNode d : cycle.path("differences")) {
                if (rows.size() == TABLE_ROWS) break;
                rows.add(new String[] {text(d.path("kind")), text(d.path("subject")), text(d.path("active")),
                        text(d.path("shadow")), text(d.path("activeRule")), text(d.path("shadowRule"))});
            }
            sb.append(columns(new String[] {"KIND", "SUBJECT", "ACTIVE", "SHADOW", "ACTIVE RULE", "SHADOW RULE"}, rows, cell));
            int more = cycle.path("differences").size() - rows.size() + cycle.path("unlisted").asInt(0);
            if (more > 0) sb.append("(").append(more).append(" more: -o json)\n");
        }
        return sb.toString();
    }

    private static String counts(JsonNode object) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, JsonNode> e : object.properties()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(e.getValue().asString()).append(' ').append(e.getKey());
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }

    private static String text(JsonNode n) {
        return n == null || n.isNull() || n.isMissingNode() ? "-" : TerminalText.safe(n.asString());
    }

    /** Aligned columns; a cell longer than {@code max} is cut to it, ending in "...". */
    private static String columns(String[] header, List<String[]> rows, int max) {
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) width[i] = header[i].length();
        for (String[] r : rows) for (int i = 0; i < r.length; i++) width[i] = Math.max(width[i], Math.min(max, r[i].length()));
        StringBuilder sb = new StringBuilder();
        List<String[]> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        for (String[] r : all) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                String cell = r[i].length() > max ? r[i].substring(0, max - 3) + "..." : r[i];
                line.append(i == 0 ? "" : "  ").append(i == r.length - 1 ? cell : String.format("%-" + width[i] + "s", cell));
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }

    private static javax.net.ssl.SSLContext trustingAll() throws java.security.GeneralSecurityException {
        javax.net.ssl.TrustManager[] all = {new javax.net.ssl.X509TrustManager() {
            @Override
            public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType) {}

            @Override
            public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                return new java.security.cert.X509Certificate[0];
            }
        }};
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(null, all, new java.security.SecureRandom());
        return ctx;
    }
}
