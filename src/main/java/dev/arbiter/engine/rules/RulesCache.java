package dev.arbiter.engine.rules;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.drools.base.common.DroolsObjectInputStream;
import org.drools.base.common.DroolsObjectOutputStream;
import org.drools.base.definitions.InternalKnowledgePackage;
import org.drools.kiesession.rulebase.InternalKnowledgeBase;
import org.drools.kiesession.rulebase.KnowledgeBaseFactory;
import org.kie.api.KieBase;
import org.kie.api.definition.KiePackage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compiled rules kept on disk, so a restart does not compile the same policy again (compiling the shipped rules takes
 * 1.5–2.5 s of a cold start; reading them back about a quarter of that).
 *
 * <p>Drools 10's KieBase itself is not serializable, but its packages are (with the bytecode of every compiled
 * constraint and consequence): the cache stores the packages after a pack's {@code disable} has removed rules, and a
 * hit builds a new KieBase from them.
 *
 * <p>A file is keyed by the policy's {@linkplain #keyOf key}: a hash of every input file (rules, settings, packs),
 * the Arbiter, Drools and Java versions, and the bytes of the classes the rules import (the fact classes, and the
 * Arbiter types their getters return), so rules compiled against other fact classes are never reused. Rules that
 * {@code declare} fact types of their own are compiled every time (Drools cannot read their classes back). A file that
 * cannot be read back — truncated, corrupt, written for another key — is ignored with one warning line and rewritten
 * after compiling. Writes go to a temporary file in the same folder, then move into place atomically, so a reader
 * never sees half a file, and a folder that cannot be written only costs the compilation.
 *
 * <p>Where: {@code --rules-cache} where a command offers it, else {@code $ARBITER_RULES_CACHE} (a folder, or
 * {@code off}), else {@code $XDG_CACHE_HOME/arbiter/rules}, else {@code ~/.cache/arbiter/rules}.
 */
public final class RulesCache {
    private static final Logger LOG = LoggerFactory.getLogger(RulesCache.class);
    /** Bumped when the file layout changes. */
    private static final String FORMAT = "arbiter-rules-cache 1";
    static final String ARBITER_VERSION = "0.1.0";
    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+([A-Za-z_$][\\w$.]*)\\s*;?\\s*$");
    /** How many compiled policies a folder keeps; the least recently written go first. */
    private static final int KEEP = 16;
    private static final RulesCache NONE = new RulesCache(null, m -> {});

    private final Path folder;
    private final Consumer<String> notices;

    private RulesCache(Path folder, Consumer<String> notices) {
        this.folder = folder;
        this.notices = notices;
    }

    /** No cache: every load compiles. */
    static RulesCache none() {
        return NONE;
    }

    /** A cache in {@code folder} (created on the first write); notices go to the log as warnings. */
    public static RulesCache at(Path folder) {
        return new RulesCache(folder, LOG::warn);
    }

    /** The same cache, telling {@code notices} (one line each) when a file is ignored or cannot be written. */
    RulesCache withNotices(Consumer<String> notices) {
        return folder == null ? this : new RulesCache(folder, notices);
    }

    /**
     * The cache of this environment: {@code flag} if given ({@code off} turns it off), else {@code $ARBITER_RULES_CACHE},
     * else the user's cache folder.
     */
    public static RulesCache fromEnvironment(String flag) {
        String chosen = flag != null && !flag.isBlank() ? flag : System.getenv("ARBITER_RULES_CACHE");
        if (chosen != null && !chosen.isBlank()) {
            return chosen.trim().equalsIgnoreCase("off") ? none() : at(Path.of(chosen.trim()));
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) return at(Path.of(xdg, "arbiter", "rules"));
        String home = System.getProperty("user.home");
        return home == null || home.isBlank() ? none() : at(Path.of(home, ".cache", "arbiter", "rules"));
    }

    /** The folder, or null when there is no cache. */
    Path folder() {
        return folder;
    }

    boolean enabled() {
        return folder != null;
    }

    /**
     * The key of a policy made of {@code inputs} (its rule, settings and pack files, in load order): equal keys mean
     * the same compiled rules.
     */
    static String keyOf(List<Path> inputs, List<Path> drl) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            update(md, FORMAT + "\narbiter " + ARBITER_VERSION + "\ndrools " + droolsVersion() + "\njava "
                    + System.getProperty("java.specification.version") + "\n");
            for (Path p : inputs) {
                update(md, "file " + p.getFileName() + "\n");
                md.update(Files.readAllBytes(p));
            }
            for (String type : importedTypes(drl)) {
                update(md, "class " + type + "\n");
                md.update(classBytes(type));
            }
            return HexFormat.of().formatHex(md.digest()).substring(0, 32);
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new RuleCompileException(List.of("cannot hash rules: " + e.getMessage()));
        }
    }

    /** The packages compiled for {@code key}, or null when there are none (or they cannot be read: then a notice). */
    KieBase read(String key) {
        if (folder == null) return null;
        Path file = fileOf(key);
        if (!Files.isRegularFile(file)) return null;
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file))) {
            byte[] header = (FORMAT + "\n" + key + "\n").getBytes(StandardCharsets.UTF_8);
            byte[] found = raw.readNBytes(header.length);
            if (!java.util.Arrays.equals(header, found)) throw new IOException("written for another key or format");
            InternalKnowledgeBase base = KnowledgeBaseFactory.newKnowledgeBase();
            Object read;
            try (ObjectInputStream in = new DroolsObjectInputStream(raw, base.getRootClassLoader())) {
                read = in.readObject();
            }
            if (!(read instanceof KiePackage[] packages) || packages.length == 0) throw new IOException("holds no rule packages");
            List<InternalKnowledgePackage> list = new ArrayList<>();
            for (KiePackage p : packages) list.add((InternalKnowledgePackage) p);
            base.addPackages(list);
            return base;
        } catch (Exception | LinkageError e) {
            notices.accept("ignoring the rules cache " + file + " (" + oneLine(e) + "); compiling the rules again");
            return null;
        }
    }

    /** Keeps {@code base}'s packages under {@code key}; a cache that cannot be written says so once and stays unused. */
    void write(String key, KieBase base) {
        if (folder == null || declaresTypes(base)) return;
        Path file = fileOf(key);
        Path tmp = null;
        try {
            Files.createDirectories(folder);
            tmp = Files.createTempFile(folder, ".kbase-", ".tmp");
            try (OutputStream raw = new BufferedOutputStream(Files.newOutputStream(tmp))) {
                raw.write((FORMAT + "\n" + key + "\n").getBytes(StandardCharsets.UTF_8));
                try (ObjectOutputStream out = new DroolsObjectOutputStream(raw)) {
                    out.writeObject(base.getKiePackages().toArray(new KiePackage[0]));
                }
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
            prune();
        } catch (Exception e) {
            notices.accept("cannot write the rules cache " + file + " (" + oneLine(e) + "); the next start compiles again");
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a stray temporary file is harmless: it never matches a key
                }
            }
        }
    }

    /**
     * Rules that {@code declare} their own fact types are not cached: Drools 10 writes their packages but cannot read
     * the declared classes back ("unread block data"), so they would only cost a failed read and a notice per start.
     */
    private static boolean declaresTypes(KieBase base) {
        return base.getKiePackages().stream().anyMatch(p -> ((InternalKnowledgePackage) p).getTypeDeclarations().values()
                .stream().anyMatch(t -> t.isGeneratedFact() || t.isNovel()));
    }

    Path fileOf(String key) {
        return folder.resolve(key + ".kbase");
    }

    /** Keeps the {@link #KEEP} most recently written files. */
    private void prune() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(folder)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".kbase")).sorted(Comparator.comparing(RulesCache::modified).reversed()).toList();
        }
        for (int i = KEEP; i < files.size(); i++) Files.deleteIfExists(files.get(i));
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * The classes the rules import, and the Arbiter classes their public methods return (a fact's resource vector):
     * compiled rules call into them, so other bytes mean other compiled rules.
     */
    private static Set<String> importedTypes(List<Path> drl) {
        Set<String> types = new LinkedHashSet<>();
        for (Path p : drl) {
            for (String line : RuleBook.read(p).split("\n", -1)) {
                Matcher m = IMPORT.matcher(RuleText.withoutComment(line));
                if (m.find() && !m.group(1).endsWith("*")) types.add(m.group(1));
            }
        }
        // Sorted: getMethods() returns methods in no particular order, which differed from one JVM to the next once
        // the rules loaded beside other start-up work, and every start then missed the cache.
        Set<String> returned = new java.util.TreeSet<>();
        for (String t : types) {
            try {
                for (Method method : Class.forName(t, false, RulesCache.class.getClassLoader()).getMethods()) {
                    Class<?> r = method.getReturnType();
                    if (r.getName().startsWith("dev.arbiter.")) returned.add(r.getName());
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // compiling will report the unknown import with its line
            }
        }
        Set<String> all = new LinkedHashSet<>(types);
        all.addAll(returned);
        return all;
    }

    private static byte[] classBytes(String type) throws IOException {
        try (InputStream in = RulesCache.class.getClassLoader().getResourceAsStream(type.replace('.', '/') + ".class")) {
            return in == null ? new byte[0] : in.readAllBytes();
        }
    }

    private static String droolsVersion() {
        try (InputStream in = KieBase.class.getClassLoader().getResourceAsStream("drools.versions.properties")) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("drools.version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static void update(MessageDigest md, String s) {
        md.update(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String oneLine(Throwable e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m.replaceAll("\\s+", " ").trim());
    }
}
