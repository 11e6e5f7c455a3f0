package dev.arbiter.runtime;

import dev.arbiter.engine.cycle.PolicyCheck;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.rules.RuleCompileException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hot reload of a rules folder: watches it, and when its {@code *.drl} content changes compiles the new rules on
 * its own thread, checks them as {@code validate} does ({@link PolicyCheck}: they run on the reference cluster within
 * the limits, and every decision the engine needs is made) in a child process ({@link ChildCheck}, so that rules that
 * never return or exit cannot wedge this one), and offers them to the {@link Listener}. The scheduler
 * swaps them in between cycles; a failed compile or check keeps the running rules. A pack's bases are watched too.
 *
 * <p>Works on a plain folder (an editor saving a file) and on a Kubernetes ConfigMap mount, where the kubelet writes
 * the new files into a fresh {@code ..<timestamp>} directory and atomically re-points the {@code ..data} symlink;
 * the {@code *.drl} entries are themselves symlinks into {@code ..data}, so the files never change in place — only
 * the {@code ..data} rename is seen. Every change in the folder, of any name, triggers a check after a quiet period
 * ({@code debounce}); the check hashes the {@code *.drl} files (following symlinks) exactly as
 * {@link RuleBook#generation()} does, and compiles only content it has not seen: the running generation is not
 * recompiled, and content that failed is reported once, not on every event.
 *
 * <p>If the files change while compiling (the book's generation differs from the hash taken before), the check runs
 * again. An optional poll period makes the watcher re-check on a timer too, for file systems without change events.
 * A ConfigMap update is atomic; on a plain folder, a save that truncates and rewrites a file in place is covered by
 * the debounce, and a half-written file that happens to compile would be followed by the complete one moments later
 * (write a temporary file and rename it over the old one to avoid even that).
 *
 * <p>Thread-safety: {@link #current()}, {@link #failures()} and {@link #reloads()} may be called from any thread.
 * Listener methods run on the watcher's compile thread, one at a time; they should only hand the result over.
 */
public final class RulesWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RulesWatcher.class);
    private static final int MAX_RETRIES = 5;
    /** How long the child process that checks new rules may take (start, compile, run): then it is killed. */
    private static final Duration CHECK_DEADLINE = Duration.ofSeconds(60);

    /** What a reload concluded. Called on the watcher's thread. */
    public interface Listener {
        /** New rules compiled: hand them to the scheduler, to be used from the next cycle. */
        void reloaded(RuleBook rules, String previousGeneration);

        /** The changed rules do not compile; the running rules stay. */
        void reloadFailed(Failure failure);
    }

    /**
     * A failed reload: the content hash that failed, the generation still running, and one
     * {@code file:line: message} line per problem.
     */
    public record Failure(String attemptedGeneration, String keptGeneration, List<String> problems) {
        public Failure {
            problems = List.copyOf(problems);
        }
    }

    private final Path folder;
    private final Duration debounce;
    private final Duration poll;
    private final Listener listener;
    private final AtomicReference<RuleBook> current;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong reloads = new AtomicLong();
    private final ScheduledExecutorService worker;
    private volatile String lastFailed;
    private ScheduledFuture<?> pendingCheck;
    private WatchService watchService;
    private Thread watchThread;
    private volatile boolean closed;

    /**
     * @param folder   the rules folder (the one {@code initial} was loaded from)
     * @param initial  the running rules
     * @param debounce quiet period after the last change before checking, e.g. 500 ms
     * @param poll     also check this often, or null to rely on change events only
     */
    public RulesWatcher(Path folder, RuleBook initial, Duration debounce, Duration poll, Listener listener) {
        this.folder = Objects.requireNonNull(folder);
        this.current = new AtomicReference<>(Objects.requireNonNull(initial));
        this.debounce = Objects.requireNonNull(debounce);
        this.poll = poll;
        this.listener = Objects.requireNonNull(listener);
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "arbiter-rules-reload");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts watching, and checks once at once: a change made between loading the initial rules and this call is not
     * missed. Returns at once.
     */
    public synchronized void start() throws IOException {
        if (watchService != null) return;
        watchService = folder.getFileSystem().newWatchService();
        folder.register(watchService, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE,
                StandardWatchEventKinds.ENTRY_MODIFY);
        // A pack's bases are read too: an edit there changes the policy as much as one in the pack.
        List<Path> folders;
        try {
            folders = RuleBook.foldersOf(folder);
        } catch (RuleCompileException unreadableNow) {
            folders = List.of(); // the check reports it
        }
        for (Path base : folders) {
            if (base.equals(folder.toAbsolutePath().normalize())) continue;
            try {
                base.register(watchService, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE,
                        StandardWatchEventKinds.ENTRY_MODIFY);
            } catch (IOException e) {
                LOG.warn("cannot watch {}, a base of rules folder {}: {}", base, folder, e.toString());
            }
        }
        watchThread = new Thread(this::watchLoop, "arbiter-rules-watch");
        watchThread.setDaemon(true);
        watchThread.start();
        if (poll != null) worker.scheduleWithFixedDelay(this::check, poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
        requestCheck();
    }

    /** The rules to schedule with: the initial ones, or the last that compiled. */
    public RuleBook current() {
        return current.get();
    }

    /** How many reloads failed to compile (the {@code rules reload failures} metric). */
    public long failures() {
        return failures.get();
    }

    /** How many new generations were loaded. */
    public long reloads() {
        return reloads.get();
    }

    /** Asks for a check after the debounce period, as a change event does. */
    public synchronized void requestCheck() {
        if (closed) return;
        if (pendingCheck != null) pendingCheck.cancel(false);
        pendingCheck = worker.schedule(this::check, debounce.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void watchLoop() {
        try {
            while (!closed) {
                WatchKey key = watchService.take();
                key.pollEvents(); // what changed does not matter: the check hashes the folder
                requestCheck();
                if (!key.reset()) {
                    LOG.warn("rules folder {} is no longer watchable; {}", folder,
                            poll == null ? "hot reload stopped" : "checking every " + poll.toSeconds() + " s only");
                    return;
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException stopping) {
            // closed
        }
    }

    /** One check: hash, and compile content not seen before. Runs on the worker thread only. */
    private void check() {
        try {
            for (int attempt = 0; attempt < MAX_RETRIES && !closed; attempt++) {
                if (checkOnce()) return;
            }
            LOG.warn("rules folder {} kept changing while compiling; will check again on the next change", folder);
        } catch (RuntimeException e) {
            LOG.error("rules reload check failed", e);
        }
    }

    /** True when done; false when the files changed while compiling (check again). */
    private boolean checkOnce() {
        String before;
        try {
            before = contentHash(folder);
        } catch (IOException e) {
            // A kubelet swap in progress can leave a dangling link for a moment; the next event retries.
            LOG.debug("cannot read rules folder {} yet: {}", folder, e.toString());
            return true;
        }
        RuleBook running = current.get();
        if (before.equals(running.generation())) {
            lastFailed = null; // back to the running rules: a later return to the broken content is reported again
            return true;
        }
        if (before.equals(lastFailed)) return true;
        RuleBook next;
        try {
            next = RuleBook.load(folder, running.cache());
        } catch (RuleCompileException e) {
            if (changedSince(before)) return false;
            fail(before, running, e.problems());
            return true;
        } catch (RuntimeException e) {
            if (changedSince(before)) return false;
            fail(before, running, List.of(folder + ": " + e.getClass().getSimpleName() + ": " + e.getMessage()));
            return true;
        }
        if (!next.generation().equals(before)) return false;
        // Rules that compile may still loop, throw, never return or leave decisions unmade: the same check as
        // validate, before they replace anything, in a child process, so that rules never run before cannot wedge
        // this one (a rule that does not return cannot be stopped on Java 20+; issue 34).
        // The child reads the folder itself: if it changed meanwhile, the child may have checked other files.
        List<String> findings = ChildCheck.check(folder, CHECK_DEADLINE);
        if (changedSince(before)) return false;
        if (!findings.isEmpty()) {
            fail(before, running, findings);
            return true;
        }
        lastFailed = null;
        current.set(next);
        reloads.incrementAndGet();
        LOG.info("rules reloaded: generation {} replaces {} ({} rules)", next.generation(), running.generation(),
                next.ruleNames().size());
        listener.reloaded(next, running.generation());
        return true;
    }

    private boolean changedSince(String hash) {
        try {
            return !contentHash(folder).equals(hash);
        } catch (IOException e) {
            return true;
        }
    }

    private void fail(String attempted, RuleBook kept, List<String> problems) {
        lastFailed = attempted;
        failures.incrementAndGet();
        for (String p : problems) LOG.error("rules reload failed, keeping generation {}: {}", kept.generation(), p);
        listener.reloadFailed(new Failure(attempted, kept.generation(), problems));
    }

    /**
     * The generation {@link RuleBook#load} would give the folder now ({@link RuleBook#generationOf}: the rule files,
     * settings and pack files, a pack's bases included). When the folder cannot be read as a policy (no rule files, a
     * broken {@code pack.yaml}), a hash of its raw {@code *.drl} and {@code *.yaml} files, so that a fix is still noticed;
     * a folder without any hashes to the empty string.
     */
    public static String contentHash(Path folder) throws IOException {
        try {
            return RuleBook.generationOf(folder);
        } catch (dev.arbiter.engine.rules.RuleCompileException unreadable) {
            // hashed raw below
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(folder)) {
            files = s.filter(p -> (p.getFileName().toString().endsWith(".drl") || p.getFileName().toString().endsWith(".yaml"))
                    && Files.isRegularFile(p)).sorted().toList();
        }
        if (files.isEmpty()) return "";
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (Path p : files) {
                md.update(p.getFileName().toString().getBytes(StandardCharsets.UTF_8));
                md.update(Files.readAllBytes(p));
            }
            return HexFormat.of().formatHex(md.digest()).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops watching and waits (up to 10 s) for a compile in progress to finish. */
    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /** Stops watching and waits up to {@code wait} for a compile in progress to finish (it is abandoned after). */
    public void close(Duration wait) {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        try {
            if (watchService != null) watchService.close();
        } catch (IOException e) {
            LOG.debug("closing watch service: {}", e.toString());
        }
        worker.shutdownNow();
        try {
            worker.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
            if (watchThread != null) watchThread.join(Math.max(1, Math.min(1000, wait.toMillis())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
