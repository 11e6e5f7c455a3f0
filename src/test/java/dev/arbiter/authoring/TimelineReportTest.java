package dev.arbiter.authoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.authoring.TimelineReport.Slot;
import dev.arbiter.cli.CliRunner;
import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.decision.PodGroupStatus;
import dev.arbiter.decision.QueueStatus;
import dev.arbiter.model.Resources;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code simulate --report}: one self-contained page whose data tells the seed's story on a collapsed cycle axis.
 * What the browser draws from it is checked by {@link TimelineReportBrowserTest}.
 */
class TimelineReportTest {
    @TempDir
    static Path dir;
    static String html;
    /** The server-rendered part of the body (everything before the scripts), parsed as XML. */
    static Document body;
    static JsonNode data;

    @BeforeAll
    static void writeTheSeedReport() throws Exception {
        Path report = dir.resolve("report.html");
        CliRunner r = CliRunner.run("simulate", "--report", report.toString(), "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("Cycle 1: 4 bound"), "the usual output still goes to stdout");
        html = Files.readString(report);
        int start = html.indexOf("<body>") + "<body>".length(), end = html.indexOf("<script");
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        body = f.newDocumentBuilder().parse(new ByteArrayInputStream(
                ("<body>" + html.substring(start, end) + "</body>").getBytes(StandardCharsets.UTF_8)));
        data = new ObjectMapper().readTree(script("report-data"));
    }

    /** The text of {@code <script ... id="ID">}. */
    private static String script(String id) {
        Matcher m = Pattern.compile("<script[^>]* id=\"" + id + "\">\\n?(.*?)</script>", Pattern.DOTALL).matcher(html);
        assertTrue(m.find(), "no script " + id);
        return m.group(1);
    }

    @Test
    void aPodGroupsRunningCountReadsWithItsMinimum() {
        assertTrue(html.contains("<th>running</th>") && html.contains("<td>2 (min 1)</td>") && html.contains("<td>2 (min 2)</td>"),
                "the final table says 'N (min M)', not 'N/M'");
        assertTrue(html.contains("'Running ' + d.segment.running + ' (min ' + d.segment.minMember + ')'"), "the bars say 'Running 4 (min 1)'");
    }

    @Test
    void itFetchesNothingAndInlinesEChartsUnchanged() throws Exception {
        assertTrue(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                + "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:\"/>"), "the policy forbids every fetch");
        String page = html.replaceAll("(?s)<script[^>]*>.*?</script>", "");
        for (String banned : List.of("http://", "https://", "<link", "<img", "<iframe", " src=", " href=", "url(", "@import")) {
            assertFalse(page.contains(banned), "the page outside its scripts contains " + banned);
        }
        String own = script("report-script");
        for (String banned : List.of("http", "fetch(", "XMLHttpRequest", "import(", "WebSocket", "sendBeacon")) {
            assertFalse(own.contains(banned), "the report's script contains " + banned);
        }
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(TimelineReport.ECHARTS)) {
            assertNotNull(in, "ECharts is on the classpath");
            assertEquals(new String(in.readAllBytes(), StandardCharsets.UTF_8) + "\n", script("echarts-library"),
                    "the library is ECharts' own built file, byte for byte");
        }
    }

    @Test
    void theIdleMinuteIsOneCollapsedSlot() {
        List<String> labels = new ArrayList<>();
        List<Boolean> idle = new ArrayList<>();
        data.get("slots").forEach(s -> {
            labels.add(s.get("label").asString());
            idle.add(s.get("idle").asBoolean());
        });
        assertEquals(List.of("1", "2\u201360", "61", "62", "63"), labels);
        assertEquals(List.of(false, true, false, false, false), idle);
    }

    @Test
    void theGpuDataShowsTenantBGivingBackHalfInTheReclaimCycle() {
        JsonNode gpu = data.get("resources").get(0);
        assertEquals("mars-tech.com/gpu", gpu.get("name").asString());
        assertEquals(List.of("mars-tech.com/gpu", "cpu", "memory"), names(data.get("resources"), "name"));
        assertEquals(List.of("default", "tenanta", "tenantb"), strings(data.get("queues")));
        assertEquals(List.of(32.0, 32.0, 16.0, 16.0, 16.0), numbers(gpu.get("allocated").get("tenantb")));
        assertEquals(List.of(0.0, 0.0, 16.0, 16.0, 16.0), numbers(gpu.get("allocated").get("tenanta")),
                "room made by the reclaim is held for tenanta's nominated gang from cycle 61");
        assertEquals(List.of(32.0, 32.0, 16.0, 16.0, 16.0), numbers(gpu.get("deserved").get("tenantb")));
        JsonNode memory = data.get("resources").get(2);
        assertTrue(memory.get("bytes").asBoolean());
        assertEquals(512.0 * (1L << 30), memory.get("allocated").get("tenantb").get(0).asDouble(), "bytes, drawn as 512Gi");
    }

    @Test
    void theMarkersSitOnTheCyclesThatDecidedAndNameTheirCycle() {
        List<String> events = new ArrayList<>();
        data.get("events").forEach(e -> events.add(e.get("slot").asInt() + ":cycle " + e.get("cycle").asInt() + ": "
                + e.get("bound").asInt() + " bound, " + e.get("evicted").asInt() + " evicted " + e.get("what").asString()));
        assertEquals(List.of("0:cycle 1: 4 bound, 0 evicted ", "2:cycle 61: 0 bound, 2 evicted 2 reclaim",
                "3:cycle 62: 2 bound, 0 evicted "), events);
        for (JsonNode e : data.get("events")) {
            assertNotNull(byId("cycle-" + e.get("cycle").asInt()), "a marker opens <details id=cycle-N>");
        }
    }

    @Test
    void thePodGroupTimelineSaysWhyTenantAWaitedAndWhenItRan() {
        JsonNode groups = data.get("podGroups");
        assertEquals(List.of("b01/tenantb-heavy-training", "a01/qwen2-72b-unified-pg"), names(groups, "name"));
        JsonNode tenanta = groups.get(1).get("segments");
        assertEquals(2, tenanta.size(), tenanta.toString());
        assertEquals("Inqueue", tenanta.get(0).get("phase").asString());
        assertEquals(2, tenanta.get(0).get("from").asInt(), "from the reclaim's slot");
        assertTrue(tenanta.get(0).get("reason").asString().contains("evicted"), tenanta.toString());
        assertEquals("Running", tenanta.get(1).get("phase").asString());
        assertEquals(3, tenanta.get(1).get("from").asInt());
        assertEquals(4, tenanta.get(1).get("to").asInt());
    }

    @Test
    void theDecisionsNameTheirRulesByShortIdWithTheSentencesOnce() {
        Element reclaim = byId("cycle-61");
        assertNotNull(reclaim);
        String text = reclaim.getTextContent();
        assertTrue(text.contains("b01/tenantb-heavy-training-worker-2") && text.contains("evict (reclaim)"), text);
        assertTrue(text.contains("reclaim") && !text.contains("takes back"), "the row carries the id: " + text);
        Element rules = elements(body.getElementsByTagName("table")).stream()
                .filter(t -> t.getAttribute("class").equals("rules")).findFirst().orElseThrow();
        assertTrue(rules.getTextContent().contains("reclaim: a queue below its deserved share takes back from reclaimable queues above theirs"));
        assertEquals(1, html.split("takes back from reclaimable", -1).length - 1 - countInData("takes back from reclaimable"),
                "the sentence is printed once");
        assertTrue(html.contains("Cycles 2\u201360: idle, nothing changed."), "the idle stretch is a line, not a table");
        assertTrue(html.contains("<table class=\"podgroups\">") && html.contains("<table class=\"queues\">"));
    }

    @Test
    void theFinalQueueTableUsesEachResourcesOwnUnits() {
        Element queues = elements(body.getElementsByTagName("table")).stream()
                .filter(t -> t.getAttribute("class").equals("queues")).findFirst().orElseThrow();
        assertTrue(queues.getTextContent().contains("cpu 32, mars-tech.com/gpu 16, memory 256Gi"), queues.getTextContent());
    }

    @Test
    void anUnwritableReportFileExits1WithOneLine() {
        CliRunner r = CliRunner.run("simulate", "--report", dir.resolve("no/such/dir/report.html").toString(), "deploy/examples/seed");
        assertEquals(1, r.exit());
        assertTrue(r.err().startsWith("error: cannot write report "), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }

    @Test
    void theSummaryCountsBindingsAndEvictions() {
        assertTrue(html.contains("6 bindings; 2 evictions: 2 reclaim in cycle 61."), html.substring(0, 2000));
        assertTrue(html.contains("5 cycles simulated (1\u201363), 1 idle stretch collapsed, stable"), html.substring(0, 2000));
    }

    @Test
    void namesCannotBreakOutOfTheirElements() {
        String hostile = "a </td><script>\"x\" & b\u001bc";
        List<Binding> bound = List.of(new Binding("ns/" + hostile, "node<1>", "gang: r"));
        CycleResult c = new CycleResult(1, "g", bound, List.of(), List.of(new PodGroupStatus("ns/" + hostile, "q", "Running", 1, 1, 0, null, null)),
                List.of(new QueueStatus("q", null, 1, "Open", Resources.of("cpu", 1), Resources.of("cpu", 1), 0, 0, 1)), Map.of());
        String page = TimelineReport.write(new dev.arbiter.sim.SimulationResult(List.of(c), List.of(new dev.arbiter.sim.PodOutcome(
                "ns/" + hostile, "Running", "node<1>")), c.podGroups(), c.queues(), List.of(hostile), true), hostile);
        String escaped = "a &lt;/td&gt;&lt;script&gt;&quot;x&quot; &amp; b c";
        assertTrue(page.contains("<title>" + escaped + "</title>") && page.contains("<h1>" + escaped + "</h1>")
                && page.contains("<p class=\"notice\">notice: " + escaped + "</p>"), "escaped, control characters as spaces");
        assertTrue(page.contains("<td>ns/" + escaped + "</td><td>node&lt;1&gt;</td>"), "in the decisions and the final tables");
        String outsideScripts = page.replaceAll("(?s)<script[^>]*>.*?</script>", "");
        assertFalse(outsideScripts.contains("<script") || outsideScripts.contains("\u001b"), "no name breaks out of its element");
        assertEquals("{\"q\":\"\\u003c/script>\"}", TimelineReport.jsonInScript("{\"q\":\"</script>\"}"));
        assertThrows(IllegalStateException.class, () -> TimelineReport.scriptSafe("var a = '</script>';"));
    }

    // ---- the cycle axis ----

    private static CycleResult cycle(int n, int bound, int gpus) {
        List<Binding> b = new ArrayList<>();
        for (int i = 0; i < bound; i++) b.add(new Binding("ns/p" + n + "-" + i, "node", "gang: r"));
        return new CycleResult(n, "g", b, List.of(), List.of(new PodGroupStatus("ns/pg", "q", "Running", 1, 1, 0, null, null)),
                List.of(new QueueStatus("q", null, 1, "Open", Resources.of("nvidia.com/gpu", gpus), Resources.of("nvidia.com/gpu", gpus), 0, 0, 1)),
                Map.of());
    }

    private static List<String> axis(CycleResult... cycles) {
        return TimelineReport.slots(List.of(cycles)).stream().map(s -> (s.idle() ? "idle " : "") + s.label()).toList();
    }

    @Test
    void cyclesTheSimulatorSkippedCollapseIntoOneIdleSlot() {
        assertEquals(List.of("1", "idle 2\u20139", "10"), axis(cycle(1, 1, 1), cycle(10, 1, 2)));
    }

    @Test
    void quietCyclesJoinTheSkippedOnesAroundThem() {
        assertEquals(List.of("1", "idle 2\u201310", "11"), axis(cycle(1, 1, 1), cycle(2, 0, 1), cycle(10, 0, 1), cycle(11, 1, 2)));
    }

    @Test
    void aLoneQuietCycleKeepsItsSlotAndAChangeIsNeverQuiet() {
        assertEquals(List.of("1", "2", "3"), axis(cycle(1, 1, 1), cycle(2, 0, 1), cycle(3, 0, 5)),
                "cycle 3 decided nothing but the queue's numbers changed");
    }

    @Test
    void aStretchOfQuietCyclesAtTheEndIsIdle() {
        assertEquals(List.of("1", "idle 2\u20134"), axis(cycle(1, 1, 1), cycle(2, 0, 1), cycle(3, 0, 1), cycle(4, 0, 1)));
        Slot last = TimelineReport.slots(List.of(cycle(1, 1, 1), cycle(2, 0, 1), cycle(3, 0, 1))).get(1);
        assertEquals(2, last.index(), "an idle slot shows the state after its last cycle");
    }

    // ---- helpers ----

    private static int countInData(String s) {
        return script("report-data").split(Pattern.quote(s), -1).length - 1;
    }

    private static Element byId(String id) {
        for (Element e : elements(body.getElementsByTagName("details"))) if (e.getAttribute("id").equals(id)) return e;
        return null;
    }

    private static List<String> names(JsonNode array, String field) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.get(field).asString()));
        return out;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString()));
        return out;
    }

    private static List<Double> numbers(JsonNode array) {
        List<Double> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asDouble()));
        return out;
    }

    private static List<Element> elements(NodeList nodes) {
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) out.add((Element) nodes.item(i));
        return out;
    }

    @Test
    void aGangInANetworkDomainShowsItsDomainOnTheTimeline() {
        dev.arbiter.model.Manifests m = dev.arbiter.scenario.ClusterBuilder.cluster().nodes(4, "nvidia.com/gpu", 8)
                .hyperNode("rack-1", 1, "node-1", "node-2").hyperNode("rack-2", 1, "node-3", "node-4")
                .job("ops/busy").pods(1, "nvidia.com/gpu", 8).running("node-1").end()
                .job("ml/train").pods(2, "nvidia.com/gpu", 8)
                .networkTopology(dev.arbiter.model.NetworkTopology.tiers(true, 1)).end()
                .manifests();
        dev.arbiter.sim.SimulationResult r = dev.arbiter.engine.cycle.Shipped.simulate(m);
        List<TimelineReport.Segment> train = TimelineReport.podGroupSegments(r.cycles(), TimelineReport.slots(r.cycles()))
                .get("ml/train");
        assertEquals("rack-2", train.get(train.size() - 1).domain(), train.toString());
    }
}
