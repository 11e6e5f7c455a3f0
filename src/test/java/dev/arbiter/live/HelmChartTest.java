package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * deploy/helm/arbiter, rendered by Helm ({@code .ci/helm-binary} builds it from the Go module proxy) against the kustomize
 * base rendered by kubectl ({@code .ci/cluster-binaries}): by default the chart makes the base's objects, its CRDs and
 * policy packs are the repository's, {@code helm lint} passes, and its values change what they say.
 */
class HelmChartTest {
    private static final Path CHART = Path.of("deploy/helm/arbiter");
    private static Path helm;
    private static Path kubectl;

    @BeforeAll
    static void binaries() throws Exception {
        helm = tool(System.getenv("ARBITER_HELM"), ".ci/helm-binary", "helm");
        String bin = System.getenv("ARBITER_CLUSTER_BIN");
        Path dir = bin != null && !bin.isBlank() ? Path.of(bin) : tool(null, ".ci/cluster-binaries", null);
        kubectl = dir == null ? null : dir.resolve("kubectl");
        if (helm == null || kubectl == null || !Files.isExecutable(kubectl)) {
            String why = "no helm or kubectl (build them with .ci/helm-binary and .ci/cluster-binaries)";
            if ("true".equals(System.getenv("CI"))) fail(why);
            Assumptions.abort(why);
        }
    }

    /** The path {@code script --check} prints, or {@code given}; null when neither names one. */
    private static Path tool(String given, String script, String name) throws Exception {
        if (given != null && !given.isBlank()) return Path.of(given);
        Process p = new ProcessBuilder(script, "--check").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || out.isEmpty()) return null;
        return Path.of(out.lines().reduce((a, b) -> b).orElseThrow());
    }

    @Test
    void byDefaultTheChartRendersTheKustomizeBase() throws Exception {
        List<Map<String, Object>> base = objects(run(kubectl.toString(), "kustomize", "deploy/arbiter"));
        List<Map<String, Object>> chart = objects(template("--set", "namespace.create=true"));
        assertEquals(keyed(base).keySet(), keyed(chart).keySet());
        keyed(base).forEach((k, o) -> assertEquals(o, keyed(chart).get(k), k));
        // Without namespace.create (Helm's way: --create-namespace), the same objects but the Namespace.
        base.removeIf(o -> "Namespace".equals(o.get("kind")));
        assertEquals(keyed(base), keyed(objects(template())));
    }

    @Test
    void theChartsCrdsAndPacksAreTheRepositorysOwn() throws IOException {
        for (Path crd : list(Path.of("deploy/crds"))) {
            assertEquals(-1L, Files.mismatch(crd, CHART.resolve("crds").resolve(crd.getFileName())),
                    "deploy/helm/arbiter/crds/" + crd.getFileName() + " must be a copy of " + crd);
        }
        assertEquals(names(Path.of("deploy/crds")), names(CHART.resolve("crds")));
        for (Path pack : list(Path.of("deploy/policies"))) {
            Path copy = CHART.resolve("policies").resolve(pack.getFileName());
            TreeSet<String> files = names(pack);
            files.remove("README.md");
            assertEquals(files, names(copy), "deploy/helm/arbiter/policies/" + pack.getFileName()
                    + " must hold the files of " + pack + " (but its README)");
            for (String f : files) assertEquals(-1L, Files.mismatch(pack.resolve(f), copy.resolve(f)), copy.resolve(f).toString());
        }
    }

    @Test
    void helmLintPasses() throws Exception {
        run(helm.toString(), "lint", "--strict", CHART.toString());
        run(helm.toString(), "lint", "--strict", CHART.toString(), "--set", "monitoring.prometheusRule.enabled=true",
                "--set", "monitoring.grafanaDashboard.enabled=true");
    }

    @Test
    @SuppressWarnings("unchecked")
    void thePrometheusRuleAndTheDashboardAreDeployMonitoringsOwn() throws Exception {
        for (String f : List.of("arbiter-alerts.rules.yaml", "arbiter-dashboard.json")) {
            assertEquals(-1L, Files.mismatch(Path.of("deploy/monitoring", f), CHART.resolve("monitoring").resolve(f)),
                    "deploy/helm/arbiter/monitoring/" + f + " must be a copy of deploy/monitoring/" + f);
        }
        // Off by default (the default render is the kustomize base's, which has neither).
        assertFalse(template().contains("kind: PrometheusRule"));
        Map<String, Map<String, Object>> r = keyed(objects(template("--set", "monitoring.prometheusRule.enabled=true",
                "--set", "monitoring.prometheusRule.labels.release=kube-prometheus-stack",
                "--set", "monitoring.grafanaDashboard.enabled=true", "--set", "monitoring.grafanaDashboard.namespace=grafana")));
        Map<String, Object> rule = r.get("PrometheusRule arbiter-system/arbiter");
        Map<String, Object> shipped = (Map<String, Object>) objects(Files.readString(Path.of("deploy/monitoring/prometheusrule.yaml"))).get(0);
        assertEquals(sorted(((Map<String, Object>) shipped.get("spec")).get("groups")),
                ((Map<String, Object>) rule.get("spec")).get("groups"));
        assertEquals(shipped.get("apiVersion"), rule.get("apiVersion"));
        Map<String, Object> labels = (Map<String, Object>) ((Map<String, Object>) rule.get("metadata")).get("labels");
        assertEquals("kube-prometheus-stack", labels.get("release"), labels.toString());
        Map<String, Object> dashboard = r.get("ConfigMap grafana/arbiter-dashboard");
        assertEquals("1", ((Map<String, Object>) ((Map<String, Object>) dashboard.get("metadata")).get("labels")).get("grafana_dashboard"));
        String json = (String) ((Map<String, Object>) dashboard.get("data")).get("arbiter-dashboard.json");
        tools.jackson.databind.ObjectMapper mapper = new tools.jackson.databind.ObjectMapper();
        assertEquals(mapper.readTree(Files.readString(Path.of("deploy/monitoring/arbiter-dashboard.json"))), mapper.readTree(json));
    }

    @Test
    void aPackIsMountedAsTheOverlayMountsIt() throws Exception {
        Map<String, Map<String, Object>> overlay = keyed(objects(run(kubectl.toString(), "kustomize",
                "--load-restrictor", "LoadRestrictionsNone", "deploy/overlays/capacity")));
        Map<String, Map<String, Object>> chart = keyed(objects(template("--set", "namespace.create=true",
                "--set", "policy.pack=capacity")));
        // The overlay's ConfigMap carries a hash in its name; the chart's rolls the pods by an annotation instead.
        Map<String, Object> overlayRules = null;
        for (String k : new ArrayList<>(overlay.keySet())) {
            if (k.startsWith("ConfigMap arbiter-system/arbiter-rules-")) overlayRules = overlay.remove(k);
        }
        Map<String, Object> chartRules = chart.remove("ConfigMap arbiter-system/arbiter-rules");
        assertEquals(overlayRules.get("data"), chartRules.get("data"));
        String deployment = "Deployment arbiter-system/arbiter";
        String overlayText = overlay.remove(deployment).toString().replaceAll("arbiter-rules-[a-z0-9]{10}(?![a-z0-9-])", "arbiter-rules");
        Map<String, Object> chartDeployment = chart.remove(deployment);
        String checksum = String.valueOf(annotations(chartDeployment).remove("arbiter.dev/policy-checksum"));
        assertTrue(checksum.matches("[0-9a-f]{64}"), checksum);
        assertEquals(overlay, chart);
        assertEquals(overlayText, chartDeployment.toString());
    }

    @Test
    void valuesChangeWhatTheySay() throws Exception {
        Map<String, Map<String, Object>> r = keyed(objects(template("--set", "replicas=3", "--set", "image.tag=9.9.9",
                "--set", "schedulerNames={arbiter,volcano}", "--set", "leaderElection.leaseName=sched",
                "--set", "metrics.serviceMonitor.enabled=true", "--set", "podDisruptionBudget.enabled=false",
                "--set", "priorityClassName=")));
        String d = r.get("Deployment arbiter-system/arbiter").toString();
        assertTrue(d.contains("replicas=3"), d);
        assertTrue(d.contains("image=registry.example.com/arbiter:9.9.9"), d);
        assertTrue(d.contains("--scheduler-name=arbiter, --scheduler-name=volcano"), d);
        assertTrue(d.contains("--lease-name=sched"), d);
        assertFalse(d.contains("priorityClassName"), d);
        assertTrue(r.get("Role arbiter-system/arbiter-leader-election").toString().contains("resourceNames=[sched]"));
        assertTrue(r.containsKey("ServiceMonitor arbiter-system/arbiter"), r.keySet().toString());
        assertFalse(r.containsKey("PodDisruptionBudget arbiter-system/arbiter"), r.keySet().toString());
    }

    @Test
    void metricsSecurityServesHttpsAndMovesTheProbes() throws Exception {
        Map<String, Map<String, Object>> r = keyed(objects(template("--set", "metrics.secure=true",
                "--set", "metrics.certSecret=arbiter-metrics-tls", "--set", "metrics.serviceMonitor.enabled=true")));
        String d = r.get("Deployment arbiter-system/arbiter").toString();
        assertTrue(d.contains("--metrics-secure, --health-port=8081, --metrics-cert-dir=/etc/arbiter/metrics-tls"), d);
        assertTrue(d.contains("httpGet={path=/healthz, port=health}"), d);
        assertTrue(d.contains("secretName=arbiter-metrics-tls"), d);
        String sm = r.get("ServiceMonitor arbiter-system/arbiter").toString();
        assertTrue(sm.contains("scheme=https") && sm.contains("insecureSkipVerify=false"), sm);
        assertTrue(r.containsKey("ClusterRole arbiter-metrics-reader"), r.keySet().toString());
    }

    @Test
    void aShadowPackIsMountedAndPassedAsShadowRules() throws Exception {
        Map<String, Map<String, Object>> none = keyed(objects(template()));
        assertFalse(none.get("Deployment arbiter-system/arbiter").toString().contains("shadow"), "no shadow by default");
        Map<String, Map<String, Object>> r = keyed(objects(template("--set", "shadow.pack=drf")));
        String d = r.get("Deployment arbiter-system/arbiter").toString();
        assertTrue(d.contains("--shadow-rules=/etc/arbiter/shadow-rules"), d);
        assertTrue(d.contains("{mountPath=/etc/arbiter/shadow-rules, name=shadow-rules, readOnly=true}"), d);
        assertTrue(d.contains("{configMap={name=arbiter-shadow-rules}, name=shadow-rules}"), d);
        assertTrue(d.contains("arbiter.dev/shadow-policy-checksum="), d);
        assertFalse(d.contains("--rules=/etc/arbiter/rules"), "the active policy stays the image's");
        Map<String, Object> cm = r.get("ConfigMap arbiter-system/arbiter-shadow-rules");
        assertTrue(cm != null && cm.toString().contains("preempt.drl"), r.keySet().toString());
    }

    @Test
    void anUnknownPackIsRefusedNamingTheValue() throws Exception {
        Process p = new ProcessBuilder(helm.toString(), "template", "arbiter", CHART.toString(), "-n", "arbiter-system",
                "--set", "policy.pack=nope").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        assertTrue(p.exitValue() != 0 && out.contains("policy.pack: no pack \"nope\""), out);
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    private static String template(String... sets) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(helm.toString(), "template", "arbiter", CHART.toString(),
                "--namespace", "arbiter-system"));
        cmd.addAll(List.of(sets));
        return run(cmd.toArray(new String[0]));
    }

    private static String run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.PIPE).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        byte[] err = p.getErrorStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            fail(String.join(" ", cmd) + ": " + new String(err, StandardCharsets.UTF_8) + out);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> objects(String yaml) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object o : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(yaml)) {
            if (o instanceof Map<?, ?> m) out.add((Map<String, Object>) m);
        }
        return out;
    }

    /** Objects by "Kind namespace/name", their maps sorted by key so that two renders compare as data. */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> keyed(List<Map<String, Object>> objects) {
        Map<String, Map<String, Object>> out = new TreeMap<>();
        for (Map<String, Object> o : objects) {
            Map<String, Object> meta = (Map<String, Object>) o.get("metadata");
            Object ns = meta.get("namespace");
            out.put(o.get("kind") + " " + (ns == null ? "" : ns + "/") + meta.get("name"), (Map<String, Object>) sorted(o));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Object sorted(Object o) {
        if (o instanceof Map<?, ?> m) {
            Map<String, Object> out = new TreeMap<>();
            m.forEach((k, v) -> out.put(String.valueOf(k), sorted(v)));
            return out;
        }
        if (o instanceof List<?> l) return l.stream().map(HelmChartTest::sorted).toList();
        return o;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> annotations(Map<String, Object> deployment) {
        Map<String, Object> spec = (Map<String, Object>) deployment.get("spec");
        Map<String, Object> template = (Map<String, Object>) spec.get("template");
        Map<String, Object> meta = (Map<String, Object>) template.get("metadata");
        return (Map<String, Object>) meta.get("annotations");
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    private static TreeSet<String> names(Path dir) throws IOException {
        TreeSet<String> out = new TreeSet<>();
        for (Path p : list(dir)) out.add(p.getFileName().toString());
        return out;
    }
}
