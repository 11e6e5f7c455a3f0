package dev.arbiter.realcluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where the real control plane's binaries are: {@code $ARBITER_CLUSTER_BIN} when set, else what
 * {@code .ci/cluster-binaries} prints (it builds them from the Go module proxy the first time, about 5 minutes, and
 * finds them cached after). Null, with {@link #whyMissing()}, when they can be neither found nor built; the suite
 * then fails under CI ({@code CI=true}) and is skipped elsewhere.
 */
final class ClusterBinaries {
    static final List<String> NAMES = List.of("etcd", "kube-apiserver", "kube-scheduler", "kubectl");
    private static String whyMissing = "";

    private ClusterBinaries() {}

    static synchronized Path find() {
        String env = System.getenv("ARBITER_CLUSTER_BIN");
        if (env != null && !env.isBlank()) {
            Path dir = Path.of(env);
            if (complete(dir)) return dir;
            whyMissing = "ARBITER_CLUSTER_BIN=" + env + " lacks one of " + NAMES;
            return null;
        }
        Path script = RealCluster.home().resolve(".ci").resolve("cluster-binaries");
        if (!Files.isExecutable(script)) {
            whyMissing = script + " is missing";
            return null;
        }
        try {
            Path log = Files.createTempFile("cluster-binaries", ".log");
            Process p = new ProcessBuilder("bash", script.toString()).redirectError(log.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(30, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                whyMissing = script + " took over 30 minutes";
                return null;
            }
            if (p.exitValue() != 0) {
                List<String> lines = Files.readAllLines(log);
                whyMissing = script + " failed: " + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
                return null;
            }
            String last = out.lines().reduce((a, b) -> b).orElse("");
            Path dir = Path.of(last);
            if (complete(dir)) return dir;
            whyMissing = script + " printed " + last + ", which lacks one of " + NAMES;
            return null;
        } catch (IOException e) {
            whyMissing = "cannot run " + script + ": " + e.getMessage();
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            whyMissing = "interrupted";
            return null;
        }
    }

    static String whyMissing() {
        return whyMissing;
    }

    private static boolean complete(Path dir) {
        return NAMES.stream().allMatch(n -> Files.isExecutable(dir.resolve(n)));
    }
}
