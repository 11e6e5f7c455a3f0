package dev.arbiter.authoring;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.arbiter.cli.CliRunner;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The timeline report as a person meets it: opened in headless Chromium, offline. The seed's report and a 20-queue
 * fleet's are rendered to PNG (under {@code target/report-screenshots/}, outside the repository, for people to look
 * at), and a copy of each with a probe script appended is run to check the DOM: every queue has its allocated and
 * deserved series in the chart and a small multiple of its own, every PodGroup a row, a click on an eviction marker
 * opens that cycle's decisions, the hover values are Kubernetes quantities, and the page tried to fetch nothing.
 *
 * <p>Skipped, with a message, where no Chromium is installed ({@code .ci/run} installs Debian's).
 */
class TimelineReportBrowserTest {
    private static final Path OUT = Path.of("target", "report-screenshots");
    private static final Path SCRATCH = Path.of("target", "report-check");
    private static Optional<HeadlessChromium> browser;

    /** Runs before the report's own scripts: records failed fetches the policy blocked, and script errors. */
    private static final String HEAD_PROBE = """
            <script>window.__violations = []; window.__errors = [];
            document.addEventListener('securitypolicyviolation', function (e) { __violations.push(e.violatedDirective + ' ' + e.blockedURI); });
            window.addEventListener('error', function (e) { __errors.push(String(e.message)); });</script>
            """;

    /** Runs after them: what was drawn, a click on the first eviction marker, a hover, and every resource's series. */
    private static final String BODY_PROBE = """
            <pre id="probe"></pre>
            <script>(function () {
              var out = {rendered: document.body.dataset.rendered === 'true', violations: __violations, errors: __errors};
              var data = JSON.parse(document.getElementById('report-data').textContent);
              var box = document.getElementById('timeline');
              var main = echarts.getInstanceByDom(box);
              out.canvas = [].map.call(box.querySelectorAll('canvas'), function (c) { return c.width * c.height; });
              out.zoom = main.getOption().dataZoom.map(function (z) { return z.type + ':' + z.xAxisIndex.join(','); });
              main.dispatchAction({type: 'dataZoom', start: 50, end: 100});
              out.zoomedTo = main.getOption().dataZoom[0].start;
              out.resources = [];
              document.querySelectorAll('#resources button').forEach(function (b) {
                b.click();
                out.resources.push({name: b.dataset.resource, pressed: b.getAttribute('aria-pressed'), drawn: box.dataset.resource,
                  series: JSON.parse(box.dataset.series)});
              });
              var memory = document.querySelector('#resources button[data-resource="memory"]');
              if (memory) {
                memory.click();
                var last = data.slots.length - 1, series = main.getOption().series;
                for (var i = 0; i < series.length; i++) if (series[i].id === 'allocated:' + data.queues[data.queues.length - 1]) break;
                main.dispatchAction({type: 'showTip', seriesIndex: i, dataIndex: last});
                var tip = box.querySelector('.arbiter-tip');
                out.memoryTip = tip ? tip.innerText : null;
              }
              document.querySelector('#resources button').click();
              out.multiples = [].map.call(document.querySelectorAll('figure.multiple'), function (f) {
                return {queue: f.dataset.queue, series: JSON.parse(f.dataset.series || '[]'), canvas: f.querySelectorAll('canvas').length};
              });
              out.podGroupRows = JSON.parse(document.getElementById('podgroup-timeline').dataset.rows || '[]');
              var ev = data.events.filter(function (e) { return e.evicted > 0; })[0];
              out.openBefore = [].map.call(document.querySelectorAll('details.cycle[open]'), function (d) { return d.id; });
              if (ev) {
                var p = main.convertToPixel({seriesId: 'evictions'}, [ev.slot, 'evicted']);
                var root = main.getZr().painter.getViewportRoot(), r = root.getBoundingClientRect();
                var at = {bubbles: true, cancelable: true, view: window, button: 0, clientX: r.left + p[0], clientY: r.top + p[1]};
                ['mousemove', 'mousedown', 'mouseup', 'click'].forEach(function (t) { root.dispatchEvent(new MouseEvent(t, at)); });
                out.clickedCycle = ev.cycle;
              }
              out.openAfter = [].map.call(document.querySelectorAll('details.cycle[open]'), function (d) { return d.id; });
              document.getElementById('probe').textContent = JSON.stringify(out);
            })();</script>
            """;

    @BeforeAll
    static void findTheBrowser() {
        browser = HeadlessChromium.find(SCRATCH);
    }

    private static HeadlessChromium chromium() {
        assumeTrue(browser.isPresent(), "no headless Chromium (chromium, chromium-browser, google-chrome; or $ARBITER_CHROMIUM):"
                + " the report's browser check is skipped. Debian: apt-get install chromium");
        return browser.get();
    }

    @Test
    void theSeedReportDrawsEveryQueueAndItsMarkersOpenTheReclaim() throws Exception {
        HeadlessChromium chromium = chromium();
        Path html = report("seed", "deploy/examples/seed");
        chromium.screenshot(html, OUT.resolve("seed.png"), 1400, 2600);
        assertLooksDrawn(OUT.resolve("seed.png"));
        JsonNode probe = probe(chromium, html);
        assertDrawn(probe, List.of("default", "tenanta", "tenantb"), List.of("b01/tenantb-heavy-training", "a01/qwen2-72b-unified-pg"));
        assertEquals(61, probe.get("clickedCycle").asInt());
        assertEquals(List.of(), strings(probe.get("openBefore")));
        assertEquals(List.of("cycle-61"), strings(probe.get("openAfter")), "the eviction marker opened cycle 61's decisions");
        String tip = probe.get("memoryTip").asString();
        assertTrue(tip.contains("cycle 63") && tip.contains("tenantb") && tip.contains("256Gi"), "hover values in Kubernetes units: " + tip);
        // Tenant A and B end at 16 and 16 GPUs: each draws the shared stretch in stripes, so neither line hides the
        // other; the default queue (0 throughout) shares tenant A's 0 before cycle 61.
        List<String> gpu = strings(probe.get("resources").get(0).get("series"));
        assertTrue(gpu.containsAll(List.of("shared:tenanta", "shared:tenantb", "shared:default")), gpu.toString());
    }

    @Test
    void aTwentyQueueFleetReportDrawsEveryQueue() throws Exception {
        HeadlessChromium chromium = chromium();
        Path fleet = SCRATCH.resolve("fleet-20-queues.yaml");
        Files.createDirectories(SCRATCH);
        CliRunner gen = CliRunner.run("generate", "--nodes", "40", "--pods", "400", "--queues", "20", "--seed", "3",
                "--file", fleet.toString());
        assertEquals(0, gen.exit(), gen.err());
        Path html = report("fleet-20-queues", fleet.toString());
        chromium.screenshot(html, OUT.resolve("fleet-20-queues.png"), 1400, 3600);
        assertLooksDrawn(OUT.resolve("fleet-20-queues.png"));
        JsonNode data = new ObjectMapper().readTree(between(Files.readString(html), "id=\"report-data\">", "</script>"));
        List<String> queues = strings(data.get("queues"));
        assertEquals(21, queues.size(), "20 generated queues and default: " + queues);
        List<String> groups = new ArrayList<>();
        data.get("podGroups").forEach(g -> groups.add(g.get("name").asString()));
        JsonNode probe = probe(chromium, html);
        assertDrawn(probe, queues, groups);
        int clicked = probe.get("clickedCycle").asInt();
        assertEquals(List.of("cycle-" + clicked), strings(probe.get("openAfter")), "the first eviction marker opened its cycle");
        assertTrue(probe.get("memoryTip").asString().matches("(?s).*\\d+(\\.\\d)?(Ki|Mi|Gi|Ti).*"),
                "memory in binary units, not bytes: " + probe.get("memoryTip").asString());
    }

    /** Simulates {@code path} with {@code --report}, through the command line as a user would. */
    private static Path report(String name, String path) throws Exception {
        Path html = Files.createDirectories(SCRATCH).resolve(name + ".html");
        CliRunner r = CliRunner.run("simulate", "--report", html.toString(), path);
        assertEquals(0, r.exit(), r.err());
        return html;
    }

    /** Runs a copy of the report with the probes in it and returns what the body probe found. */
    private static JsonNode probe(HeadlessChromium chromium, Path html) throws Exception {
        String page = Files.readString(html);
        int head = page.indexOf("<head>") + "<head>".length(), end = page.lastIndexOf("</body>");
        String probed = page.substring(0, head) + "\n" + HEAD_PROBE + page.substring(head, end) + BODY_PROBE + page.substring(end);
        Path copy = html.resolveSibling(html.getFileName().toString().replace(".html", "-probe.html"));
        Files.writeString(copy, probed);
        String dom = chromium.dumpDom(copy);
        String json = between(dom, "<pre id=\"probe\">", "</pre>").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
        assertTrue(!json.isBlank(), "the probe ran; DOM starts: " + dom.substring(0, Math.min(400, dom.length())));
        return new ObjectMapper().readTree(json);
    }

    private static void assertDrawn(JsonNode probe, List<String> queues, List<String> podGroups) {
        assertAll(
                () -> assertTrue(probe.get("rendered").asBoolean(), "the report's script finished"),
                () -> assertEquals(List.of(), strings(probe.get("errors")), "script errors"),
                () -> assertEquals(List.of(), strings(probe.get("violations")), "the page tried to fetch something"),
                () -> assertTrue(probe.get("canvas").size() > 0 && probe.get("canvas").get(0).asInt() > 100_000, "a chart was painted"),
                () -> assertEquals(List.of("inside:0,1", "slider:0,1"), strings(probe.get("zoom")), "zoom by wheel and slider, lines and markers together"),
                () -> assertEquals(50, probe.get("zoomedTo").asInt(), "zooming moves the window"),
                () -> {
                    for (JsonNode r : probe.get("resources")) {
                        assertEquals("true", r.get("pressed").asString());
                        assertEquals(r.get("name").asString(), r.get("drawn").asString());
                        Set<String> series = new HashSet<>(strings(r.get("series")));
                        for (String q : queues) {
                            assertTrue(series.contains("allocated:" + q) && series.contains("deserved:" + q),
                                    r.get("name").asString() + ": queue " + q + " has no series in " + series);
                        }
                        assertTrue(series.contains("bindings") && series.contains("evictions") && series.contains("idle"), series.toString());
                    }
                },
                () -> {
                    List<String> multiples = new ArrayList<>();
                    for (JsonNode m : probe.get("multiples")) {
                        multiples.add(m.get("queue").asString());
                        assertTrue(m.get("canvas").asInt() > 0, "small multiple of " + m.get("queue").asString() + " painted");
                        assertTrue(strings(m.get("series")).contains("allocated:" + m.get("queue").asString()), m.toString());
                    }
                    assertEquals(queues, multiples, "one small multiple per queue");
                },
                () -> assertEquals(podGroups, strings(probe.get("podGroupRows")), "one PodGroup timeline row per PodGroup"));
    }

    /** Not a blank page: thousands of non-white pixels in many colours (the lines, bands, bars and text). */
    private static void assertLooksDrawn(Path png) throws Exception {
        BufferedImage img = ImageIO.read(png.toFile());
        Set<Integer> colours = new HashSet<>();
        long inked = 0;
        for (int y = 0; y < img.getHeight(); y += 2) {
            for (int x = 0; x < img.getWidth(); x += 2) {
                int rgb = img.getRGB(x, y) & 0xffffff;
                colours.add(rgb);
                if (rgb != 0xffffff) inked++;
            }
        }
        assertTrue(colours.size() > 200 && inked > 20_000, png + ": " + colours.size() + " colours, " + inked + " inked samples");
    }

    private static String between(String s, String from, String to) {
        int a = s.indexOf(from);
        assertTrue(a >= 0, "no " + from);
        int b = s.indexOf(to, a + from.length());
        return s.substring(a + from.length(), b);
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        if (array != null) array.forEach(n -> out.add(n.asString()));
        return out;
    }
}
