package dev.arbiter.authoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.CliRunner;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** {@code simulate --report}: one well-formed, self-contained page whose GPU chart shows the seed's reclaim. */
class TimelineReportTest {
    @TempDir
    static Path dir;
    static String html;
    static Document doc;

    @BeforeAll
    static void writeTheSeedReport() throws Exception {
        Path report = dir.resolve("report.html");
        CliRunner r = CliRunner.run("simulate", "--report", report.toString(), "deploy/examples/seed");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("Cycle 1: 4 bound"), "the usual output still goes to stdout");
        html = Files.readString(report);
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
        DocumentBuilder b = f.newDocumentBuilder();
        doc = b.parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void itIsWellFormedAndFetchesNothing() {
        assertEquals("html", doc.getDocumentElement().getTagName());
        for (String banned : List.of("http://", "https://", "<script", "<link", "<img", "<iframe", " src=", " href=", "url(", "@import")) {
            assertFalse(html.contains(banned), "contains " + banned);
        }
    }

    @Test
    void eachResourceChartHasOneLabelledSeriesPerQueue() {
        List<Element> charts = elements(doc.getElementsByTagName("svg"));
        List<String> resources = charts.stream().map(c -> c.getAttribute("data-resource")).toList();
        assertEquals(List.of("mars-tech.com/gpu", "cpu", "memory"), resources);
        for (Element chart : charts) {
            List<Element> series = elements(chart.getElementsByTagName("g")).stream()
                    .filter(g -> g.getAttribute("class").equals("series")).toList();
            assertEquals(List.of("default", "tenanta", "tenantb"), series.stream().map(g -> g.getAttribute("data-queue")).toList());
            for (Element s : series) {
                List<Element> lines = elements(s.getElementsByTagName("polyline"));
                assertEquals(List.of("allocated", "deserved"), lines.stream().map(l -> l.getAttribute("class")).toList());
                assertTrue(s.getTextContent().contains(s.getAttribute("data-queue")), "labelled with its queue");
            }
        }
    }

    @Test
    void theGpuChartShowsTenantBGivingBackHalfInTheReclaimCycle() {
        Element gpu = elements(doc.getElementsByTagName("svg")).get(0);
        Map<Integer, Double> tenantb = markers(gpu, "tenantb");
        Map<Integer, Double> idle = markers(gpu, "default");
        Element firstEviction = elements(doc.getElementsByTagName("tr")).stream()
                .filter(tr -> tr.getAttribute("class").equals("evict")).findFirst().orElseThrow();
        int reclaim = Integer.parseInt(firstEviction.getElementsByTagName("td").item(0).getTextContent());
        assertEquals(Set.of(1, reclaim), tenantb.keySet().stream().filter(c -> c == 1 || c == reclaim).collect(Collectors.toSet()),
                "a point for the first cycle and for the reclaim: " + tenantb.keySet());
        double full = tenantb.get(1), zero = idle.get(1);
        // 32 GPUs from cycle 1, 16 from the reclaim cycle on: halfway down to zero (SVG y grows downwards).
        assertEquals((zero + full) / 2, tenantb.get(reclaim), 0.2);
        int last = tenantb.keySet().stream().max(Integer::compare).orElseThrow();
        assertEquals(tenantb.get(reclaim), tenantb.get(last), 0.01);
        List<Element> evictions = elements(gpu.getElementsByTagName("g")).stream()
                .filter(g -> g.getAttribute("class").equals("evictions")).toList();
        assertEquals(1, evictions.size());
        assertTrue(evictions.get(0).getTextContent().contains("cycle " + reclaim + ": 2 reclaim"), evictions.get(0).getTextContent());
    }

    /** Cycle → y of a queue's allocated markers (their tooltips say "q cycle N: allocated ..."). */
    private static Map<Integer, Double> markers(Element chart, String queue) {
        Element series = elements(chart.getElementsByTagName("g")).stream()
                .filter(g -> g.getAttribute("data-queue").equals(queue)).findFirst().orElseThrow();
        Map<Integer, Double> out = new TreeMap<>();
        for (Element c : elements(series.getElementsByTagName("circle"))) {
            String title = c.getTextContent();
            int cycle = Integer.parseInt(title.replaceAll("^" + queue + " cycle (\\d+):.*$", "$1"));
            out.put(cycle, Double.parseDouble(c.getAttribute("cy")));
        }
        return out;
    }

    @Test
    void theDecisionsAndFinalTablesNameTheRules() {
        Element decisions = elements(doc.getElementsByTagName("table")).get(0);
        assertEquals("decisions", decisions.getAttribute("class"));
        String text = decisions.getTextContent();
        assertTrue(text.contains("reclaim: a queue below its deserved share takes back from reclaimable queues above theirs"));
        assertTrue(text.contains("b01/tenantb-heavy-training-worker-2"));
        assertTrue(html.contains("<table class=\"podgroups\">") && html.contains("<table class=\"queues\">"));
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
        assertTrue(html.contains("6 bindings; 2 evictions: 2 reclaim in cycle "), html.substring(0, 800));
    }

    private static List<Element> elements(NodeList nodes) {
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) out.add((Element) nodes.item(i));
        return out;
    }
}
