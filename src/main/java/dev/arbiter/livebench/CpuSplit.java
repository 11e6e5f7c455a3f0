package dev.arbiter.livebench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a process's CPU time went, by side: each thread's CPU time is read and filed under a part by its name (the
 * scheduling loop, the binders, the client's watch decoding, the stand-in API server, garbage collection, ...).
 *
 * <p>On Linux it reads {@code /proc/<pid>/task/&#42;/stat}, which covers every thread of the process, the JVM's own
 * (GC, JIT) included, and works for another process (a scheduler started as a child). Elsewhere it falls back to this
 * JVM's Java threads through {@link ThreadMXBean}. Threads that ended between two readings are lost from the parts;
 * {@link #OTHER} receives the difference to the process's total where the total is known.
 */
public final class CpuSplit {
    /** The parts, in report order. */
    public static final String LOOP = "loop";
    public static final String BINDERS = "binders";
    public static final String WRITERS = "events+status";
    public static final String INFORMERS = "informers";
    public static final String CLIENT_IO = "client-io";
    public static final String STANDIN = "stand-in";
    public static final String BENCH = "bench";
    public static final String GC = "gc";
    public static final String JIT = "jit";
    public static final String OTHER = "other";
    static final List<String> PARTS = List.of(LOOP, BINDERS, WRITERS, INFORMERS, CLIENT_IO, STANDIN, BENCH, GC, JIT, OTHER);

    /** Linux reports thread CPU in clock ticks of 1/100 s (USER_HZ, fixed at 100 on every Linux ABI Java runs on). */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private CpuSplit() {}

    /**
     * The part a thread belongs to, by its name as Java or {@code /proc} (15 characters) shows it. The stand-in names
     * its event loops {@code standin-...}; fabric8's informers hand events to pool threads ({@code ...-pool-N-thread-M})
     * that also decode them; the client's Vert.x event loops read and write the sockets. {@link #GC} includes the VM
     * thread, which runs the safepoint operations that collections start.
     */
    static String part(String thread) {
        if (thread.startsWith("arbiter-schedul")) return LOOP;
        if (thread.startsWith("arbiter-binder")) return BINDERS;
        if (thread.startsWith("arbiter-events") || thread.startsWith("arbiter-status")) return WRITERS;
        if (thread.startsWith("standin")) return STANDIN;
        if (thread.startsWith("vert.x-")) return CLIENT_IO;
        // fabric8's executor threads: "-1416836631-pool-3-thread-1", in /proc "-1416836631-poo"
        if (thread.matches("-?\\d+-poo.*") || thread.startsWith("pool-")) return INFORMERS;
        if (thread.startsWith("GC Thread") || thread.startsWith("G1 ") || thread.equals("VM Thread")) return GC;
        if (thread.startsWith("C1 Compiler") || thread.startsWith("C2 Compiler")) return JIT;
        if (thread.equals("main") || thread.equals("java") || thread.startsWith("arbiter-run")) return BENCH;
        return OTHER;
    }

    /** CPU seconds per part for process {@code pid} now (this JVM when pid is this one), and its total under "total". */
    public static Map<String, Double> read(long pid) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String p : PARTS) out.put(p, 0.0);
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        double sum = 0;
        if (Files.isDirectory(tasks)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
                for (Path t : ds) {
                    try {
                        String name = Files.readString(t.resolve("comm")).trim();
                        double s = ticks(Files.readString(t.resolve("stat"))) * NANOS_PER_TICK / 1e9;
                        out.merge(part(name), s, Double::sum);
                        sum += s;
                    } catch (IOException | RuntimeException threadEnded) {
                        // gone between the listing and the read
                    }
                }
            } catch (IOException unreadable) {
                // fall through: the total below still holds
            }
            double total = processCpuSeconds(pid);
            if (total > sum) out.merge(OTHER, total - sum, Double::sum);
            out.put("total", Math.max(total, sum));
            return out;
        }
        if (pid != ProcessHandle.current().pid()) {
            out.put("total", processCpuSeconds(pid));
            return out;
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            long ns = threads.getThreadCpuTime(t.getId());
            if (ns > 0) {
                out.merge(part(t.getName()), ns / 1e9, Double::sum);
                sum += ns / 1e9;
            }
        }
        double total = processCpuSeconds(pid);
        if (total > sum) out.merge(OTHER, total - sum, Double::sum);
        out.put("total", Math.max(total, sum));
        return out;
    }

    /** What was used between two readings, per part (and "total"). */
    public static Map<String, Double> between(Map<String, Double> before, Map<String, Double> after) {
        Map<String, Double> out = new LinkedHashMap<>();
        after.forEach((k, v) -> out.put(k, Math.max(0, v - before.getOrDefault(k, 0.0))));
        return out;
    }

    /** utime + stime from a {@code /proc/.../stat} line (fields 14 and 15, counted after the command in parentheses). */
    static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state): utime is field 14, stime 15
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** The CPU time of process {@code pid} in seconds (0 when unknown). */
    static double processCpuSeconds(long pid) {
        if (pid == ProcessHandle.current().pid()
                && ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime() / 1e9;
        }
        return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(d -> d.toNanos() / 1e9).orElse(0.0);
    }

    /** "loop 1.8, binders 0.9, ..." for the parts that used at least 0.05 s. */
    public static String describe(Map<String, Double> split) {
        StringBuilder sb = new StringBuilder();
        for (String p : PARTS) {
            double s = split.getOrDefault(p, 0.0);
            if (s < 0.05) continue;
            if (sb.length() > 0) sb.append(", ");
            sb.append(String.format(java.util.Locale.ROOT, "%s %.1f", p, s));
        }
        return sb.toString();
    }
}
