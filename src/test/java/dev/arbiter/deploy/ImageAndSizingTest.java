package dev.arbiter.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The image and the Deployment agree with what the benchmarks measured and with each other: memory sized by the stated
 * rule for the documented scale, the JVM's flags set in one place, a pinned base image, and a build context holding
 * only what the image copies.
 */
class ImageAndSizingTest {
    private static final Path DOCKERFILE = Path.of("deploy/Dockerfile");
    private static final Path DEPLOYMENT = Path.of("deploy/arbiter/deployment.yaml");
    private static final double GI = 1L << 30;
    /** The documented scale (docs/benchmarks.md): 10,000 nodes, 100,000 pending pods and 6,266 running ones. */
    private static final int DOCUMENTED_PODS = 100_000 + 6_266;
    /** The benchmarks' target for the engine's peak heap at that scale (docs/benchmarks.md: "peak heap < 4 GB"). */
    private static final double HEAP_TARGET_BYTES = 4e9;

    /** The rule docs/operations.md and the Deployment state: 1.5 GiB + 0.5 GiB per 10,000 pods. */
    static double ruleGiB(int pods) {
        return 1.5 + 0.5 * pods / 10_000.0;
    }

    private static Container container() throws IOException {
        try (InputStream in = Files.newInputStream(DEPLOYMENT)) {
            Deployment d = new KubernetesSerialization().unmarshal(in, Deployment.class);
            return d.getSpec().getTemplate().getSpec().getContainers().get(0);
        }
    }

    private static double bytes(Quantity q) {
        return Quantity.getAmountInBytes(q).doubleValue();
    }

    @Test
    void theMemoryLimitFollowsTheRuleAtTheDocumentedScaleAndLeavesTheHeapItsTarget() throws IOException {
        Container c = container();
        double limit = bytes(c.getResources().getLimits().get("memory"));
        assertTrue(limit >= ruleGiB(DOCUMENTED_PODS) * GI, "limit " + limit / GI + " GiB < rule " + ruleGiB(DOCUMENTED_PODS));
        assertTrue(limit <= (ruleGiB(DOCUMENTED_PODS) + 1) * GI, "rounded up by less than 1 GiB, not oversized: " + limit / GI);
        double heap = limit * maxRamPercentage() / 100;
        assertTrue(heap >= HEAP_TARGET_BYTES, "the heap (" + heap / GI + " GiB) holds the benchmarks' 4 GB peak-heap target");
        assertEquals(c.getResources().getLimits().get("memory"), c.getResources().getRequests().get("memory"),
                "memory request = limit");
        String doc = Files.readString(Path.of("docs/operations.md"));
        assertTrue(doc.contains("**1.5 GiB + 0.5 GiB per 10,000 pods**"), "the rule is stated in docs/operations.md");
        assertTrue(Files.readString(DEPLOYMENT).contains("1.5 GiB + 0.5 GiB per 10,000 pods"), "and next to the limit");
    }

    @Test
    void theJvmFlagsAreSetOnceInTheImage() throws IOException {
        List<String> mentions = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("deploy"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                for (String line : Files.readAllLines(f)) {
                    String code = line.replaceAll("#.*$", "");
                    // The build-time training run that writes the AOT cache is not a runtime flag.
                    if (code.startsWith("RUN java -XX:AOTCacheOutput=")) continue;
                    if (code.contains("-XX:") || code.contains("-Xmx") || code.contains("JAVA_TOOL_OPTIONS") || code.contains("JAVA_OPTS")) {
                        mentions.add(f + ": " + line.strip());
                    }
                }
            }
        }
        assertEquals(1, mentions.size(), "JVM flags in exactly one place: " + mentions);
        assertTrue(mentions.get(0).startsWith(DOCKERFILE + ": ENTRYPOINT"), mentions.toString());
        assertFalse(container().getEnv().stream().anyMatch(e -> e.getName().startsWith("JAVA")), "no JVM options in the Deployment");
    }

    /**
     * The image trains an AOT cache at build time and every start maps that very file; the training run is a command
     * the jar has, and the base image a JRE that has the flags (JDK 25: {@code -XX:AOTCacheOutput}).
     */
    @Test
    void theImageMapsTheAotCacheItsBuildWrote() throws IOException {
        String docker = Files.readString(DOCKERFILE);
        Matcher written = Pattern.compile("RUN java -XX:AOTCacheOutput=(\\S+) -jar /opt/arbiter/arbiter.jar ([\\w-]+)")
                .matcher(docker);
        assertTrue(written.find(), "a training run writes the cache");
        assertTrue(docker.contains("\"-XX:AOTCache=" + written.group(1) + "\""), "the ENTRYPOINT maps the same file");
        assertEquals("train-jvm", written.group(2));
        assertTrue(new picocli.CommandLine(new dev.arbiter.cli.Main()).getSubcommands().containsKey(written.group(2)),
                "the training command is one the jar has");
        assertTrue(docker.indexOf("AOTCacheOutput") < docker.indexOf("USER 10001"),
                "the cache is written as root, before the image drops to the arbiter user");
        Matcher jre = Pattern.compile("(?m)^FROM eclipse-temurin:(\\d+)\\.").matcher(docker);
        assertTrue(jre.find() && Integer.parseInt(jre.group(1)) >= 25, "a JRE with -XX:AOTCacheOutput (25+)");
    }

    @Test
    void theHeapIsItsFullSizeFromTheStart() throws IOException {
        Matcher m = Pattern.compile("-XX:InitialRAMPercentage=(\\d+)").matcher(Files.readString(DOCKERFILE));
        assertTrue(m.find(), "the image sets the initial heap too");
        assertEquals(maxRamPercentage(), Integer.parseInt(m.group(1)), "a heap that grows keeps faulting pages in");
    }

    private static int maxRamPercentage() throws IOException {
        Matcher m = Pattern.compile("-XX:MaxRAMPercentage=(\\d+)").matcher(Files.readString(DOCKERFILE));
        assertTrue(m.find(), "the image sets the heap as a share of the container's memory");
        return Integer.parseInt(m.group(1));
    }

    @Test
    void theBaseImageIsPinnedToAFullVersionOrADigest() throws IOException {
        List<String> from = Files.readAllLines(DOCKERFILE).stream().filter(l -> l.startsWith("FROM ")).toList();
        assertEquals(1, from.size(), from.toString());
        String image = from.get(0).substring("FROM ".length()).strip();
        assertTrue(image.matches(".+@sha256:[0-9a-f]{64}") || image.matches("[^:]+:\\d+\\.\\d+\\.\\d+[_+.-]\\d+.*"),
                "a moving tag such as 17-jre would give another JVM on every build: " + image);
    }

    @Test
    void theBuildContextHoldsOnlyWhatTheImageCopies() throws IOException {
        Path ignore = Path.of(".dockerignore");
        assertTrue(Files.isRegularFile(ignore), "a .dockerignore at the build context's root (the repository root)");
        List<String> rules = Files.readAllLines(ignore).stream().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertEquals("*", rules.get(0), "everything is left out first");
        List<String> copied = new ArrayList<>();
        for (String line : Files.readAllLines(DOCKERFILE)) {
            if (!line.startsWith("COPY ")) continue;
            String[] parts = line.substring("COPY ".length()).strip().split("\\s+");
            for (int i = 0; i < parts.length - 1; i++) if (!parts[i].startsWith("--")) copied.add(parts[i].replaceAll("/$", ""));
        }
        assertEquals(List.of("target/arbiter.jar", "rules"), copied);
        assertEquals(copied.stream().map(c -> "!" + c).toList(), rules.subList(1, rules.size()),
                "exactly what the Dockerfile copies comes back in");
    }

    @Test
    void theRuleItselfGivesTheNumbersTheDocsQuote() {
        assertEquals(6.8, ruleGiB(DOCUMENTED_PODS), 0.05);
        assertEquals(new BigDecimal("2.5"), BigDecimal.valueOf(ruleGiB(20_000)).stripTrailingZeros());
    }
}
