package dev.arbiter.engine.rules;

import dev.arbiter.policy.PolicySettings;
import dev.arbiter.policy.PolicySettingsReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.kie.api.KieBase;
import org.kie.api.KieServices;
import org.kie.api.builder.KieBuilder;
import org.kie.api.builder.KieFileSystem;
import org.kie.api.builder.Message;
import org.kie.api.builder.ReleaseId;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;
import org.kie.api.runtime.KieSession;

/**
 * A compiled policy: the {@code *.drl} files and the settings ({@code policy.yaml}) of one folder, loaded from the file
 * system (never the classpath), so platform engineers can edit rules without rebuilding Arbiter.
 *
 * <p>A folder may be a <b>pack</b>: an overlay on another policy. Its {@code pack.yaml} names the base folder
 * ({@code extends}, relative to the pack) and the base rules it turns off ({@code disable}, by rule name); each
 * {@code *.drl} file of the pack adds a file or replaces the base's file of the same name, and its {@code policy.yaml}
 * states only the settings it changes. Packs may extend packs.
 *
 * <p>Loading is all-or-nothing: {@link #load} either returns a complete rule book or throws
 * {@link RuleCompileException} listing every problem as {@code file:line: message}; a caller holding a working rule
 * book keeps it. The {@link #generation()} is a content hash of every file that went in, stamped on decisions.
 */
public final class RuleBook {
    public static final String SETTINGS_FILE = "policy.yaml";
    public static final String PACK_FILE = "pack.yaml";
    /** A pack's {@code extends: shipped}: the policy shipped with this Arbiter, wherever it is installed. */
    static final String SHIPPED = "shipped";
    private static final AtomicLong BUILDS = new AtomicLong();

    /** The files a folder (and its bases) contributes, after overlaying. */
    private record Sources(List<Path> drl, List<Path> settings, List<String> disabled, List<Path> packs, String name) {}

    private final Path folder;
    private final List<Path> files;
    private final KieBase kieBase;
    private final String generation;
    private final PolicySettings settings;
    private final Map<String, String> ruleLocations;
    private final String packName;
    private final RulesCache cache;
    private final boolean fromCache;

    private RuleBook(Path folder, List<Path> files, KieBase kieBase, String generation, PolicySettings settings,
                     Map<String, String> ruleLocations, String packName, RulesCache cache, boolean fromCache) {
        this.packName = packName;
        this.cache = cache;
        this.fromCache = fromCache;
        this.folder = folder;
        this.files = files;
        this.kieBase = kieBase;
        this.generation = generation;
        this.settings = settings;
        this.ruleLocations = ruleLocations;
    }

    /** Compiles the policy of {@code folder}: its rules and settings, overlaid on its base when it is a pack. */
    public static RuleBook load(Path folder) {
        return load(folder, RulesCache.none());
    }

    /**
     * Loads the policy of {@code folder}, taking its compiled rules from {@code cache} when they are there and putting
     * them there when they were not. Only rules that compiled (and whose pack's {@code disable} names exist) are
     * cached, so errors are always found by compiling. The rule book remembers the cache, so a hot reload uses it too.
     */
    public static RuleBook load(Path folder, RulesCache cache) {
        Sources sources = sources(folder, new ArrayList<>());
        PolicySettings settings = PolicySettings.defaults();
        try {
            for (Path p : sources.settings()) settings = PolicySettingsReader.read(read(p), p.toString(), settings);
        } catch (PolicySettingsReader.SettingsException e) {
            throw new RuleCompileException(List.of(e.getMessage()));
        }
        String key = cache.enabled() ? RulesCache.keyOf(inputs(sources), sources.drl()) : null;
        KieBase cached = key == null ? null : cache.read(key);
        Map<String, String> locations = locations(sources.drl());
        if (cached != null) {
            contain(cached, sources.drl(), locations);
            sources.disabled().forEach(locations::remove);
            inPhases(cached, locations);
            return new RuleBook(folder, List.copyOf(sources.drl()), cached, hash(inputs(sources)), settings, locations,
                    sources.name(), cache, true);
        }
        KieBase base = compile(folder, sources);
        contain(base, sources.drl(), locations);
        disable(base, sources, locations);
        inPhases(base, locations);
        if (key != null) cache.write(key, base);
        return new RuleBook(folder, List.copyOf(sources.drl()), base, hash(inputs(sources)), settings, locations, sources.name(), cache, false);
    }

    /**
     * Refuses rules that would call what a rule may not: their conditions by the names they use
     * ({@link RuleExpressions}), their compiled code by its bytecode ({@link RuleBytecode}). Checked after compiling,
     * so a typo gets the compiler's message first; compiling runs no rule code.
     */
    private static void contain(KieBase base, List<Path> drl, Map<String, String> locations) {
        List<String> refused = new ArrayList<>(RuleExpressions.refusedNames(drl, RuleBook.class.getClassLoader()));
        refused.addAll(RuleBytecode.refusedCalls(base, locations));
        if (!refused.isEmpty()) throw new RuleCompileException(refused);
    }

    /** Refuses rules in no phase the engine fires ({@link Phase}): a misspelled group would silently turn them off. */
    private static void inPhases(KieBase base, Map<String, String> locations) {
        List<String> misplaced = Phase.misplaced(base, locations);
        if (!misplaced.isEmpty()) throw new RuleCompileException(misplaced);
    }

    /** Compiles the rule files; every error is one {@code file:line: message} of the exception. */
    private static KieBase compile(Path folder, Sources sources) {
        KieServices ks = KieServices.Factory.get();
        KieFileSystem kfs = ks.newKieFileSystem();
        ReleaseId rid = ks.newReleaseId("dev.arbiter.rules", "policy-" + BUILDS.incrementAndGet(), "1.0.0");
        kfs.generateAndWritePomXML(rid);
        for (Path p : sources.drl()) {
            kfs.write("src/main/resources/rules/" + p.getFileName(), ks.getResources().newFileSystemResource(p.toFile()));
        }
        KieBuilder kb = ks.newKieBuilder(kfs).buildAll();
        List<String> problems = new ArrayList<>();
        Map<String, Path> byName = new LinkedHashMap<>();
        for (Path p : sources.drl()) byName.put(p.getFileName().toString(), p);
        for (Message m : kb.getResults().getMessages(Message.Level.ERROR)) {
            String line = describe(folder, byName, m);
            if (line != null && !problems.contains(line)) problems.add(line);
        }
        if (!problems.isEmpty()) throw new RuleCompileException(problems);
        KieBase base = ks.newKieContainer(rid).getKieBase();
        ks.getRepository().removeKieModule(rid);
        return base;
    }

    /**
     * The generation {@link #load} would give {@code folder}'s policy now, without compiling it: a hash of every file
     * that would go in (a pack's and its bases').
     */
    public static String generationOf(Path folder) {
        return hash(inputs(sources(folder, new ArrayList<>())));
    }

    /**
     * Where the shipped policy is installed: {@code $ARBITER_HOME/rules} (the image sets it to {@code /opt/arbiter}; the
     * {@code ./arbiter} launcher to the repository), else {@code ./rules} when that is a folder (a checkout), else the
     * copy the jar carries ({@link ShippedRules}, unpacked once per release): {@code java -jar arbiter.jar} runs from
     * any folder. A pack that says {@code extends: shipped} overlays it, so the same pack works in the repository, on a
     * laptop and in the cluster.
     */
    public static Path shippedFolder() {
        String home = System.getenv("ARBITER_HOME");
        if (home != null && !home.isBlank()) return Path.of(home, "rules");
        Path local = Path.of("rules");
        if (Files.isDirectory(local)) return local;
        Path inJar = ShippedRules.folder();
        return inJar != null ? inJar : local;
    }

    /** The folders {@code folder}'s policy reads: the folder, and for a pack each base it extends. */
    public static List<Path> foldersOf(Path folder) {
        List<Path> seen = new ArrayList<>();
        sources(folder, seen);
        return List.copyOf(seen);
    }

    private static List<Path> inputs(Sources sources) {
        List<Path> all = new ArrayList<>(sources.drl());
        all.addAll(sources.settings());
        all.addAll(sources.packs());
        return all;
    }

    /**
     * The files of {@code folder} after overlaying it on its base, if it is a pack. {@code seen} guards against a pack
     * that extends itself through others.
     */
    private static Sources sources(Path folder, List<Path> seen) {
        if (!Files.isDirectory(folder)) {
            throw new RuleCompileException(List.of(folder + ": not a folder of .drl rule files"));
        }
        Path real = folder.toAbsolutePath().normalize();
        if (seen.contains(real)) {
            throw new RuleCompileException(List.of(folder.resolve(PACK_FILE) + ":1: extends: packs extend each other in a circle"));
        }
        seen.add(real);
        Path packFile = folder.resolve(PACK_FILE);
        Pack pack = Files.isRegularFile(packFile) ? Pack.read(packFile) : null;
        Map<String, Path> drl = new LinkedHashMap<>();
        List<Path> settings = new ArrayList<>();
        List<String> disabled = new ArrayList<>();
        List<Path> packs = new ArrayList<>();
        if (pack != null) {
            boolean shipped = pack.extendsFolder().equals(SHIPPED);
            Path baseFolder = shipped ? shippedFolder() : folder.resolve(pack.extendsFolder()).normalize();
            if (!Files.isDirectory(baseFolder)) {
                throw new RuleCompileException(List.of(Pack.lineOf(List.of(packFile), "extends") + ": extends: "
                        + pack.extendsFolder() + " (" + baseFolder + ") is not a folder"
                        + (shipped ? "; set ARBITER_HOME to where Arbiter is installed" : "")));
            }
            Sources base = sources(baseFolder, seen);
            for (Path p : base.drl()) drl.put(p.getFileName().toString(), p);
            settings.addAll(base.settings());
            disabled.addAll(base.disabled());
            packs.addAll(base.packs());
            packs.add(packFile);
            disabled.addAll(pack.disable());
        }
        for (Path p : ownDrlFiles(folder)) drl.put(p.getFileName().toString(), p);
        if (drl.isEmpty()) throw new RuleCompileException(List.of(folder + ": no .drl rule files"));
        Path own = folder.resolve(SETTINGS_FILE);
        if (Files.isRegularFile(own)) settings.add(own);
        List<Path> sorted = new ArrayList<>(drl.values());
        sorted.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        return new Sources(sorted, settings, disabled, packs, pack == null ? null : pack.name());
    }

    private static List<Path> ownDrlFiles(Path folder) {
        try (Stream<Path> s = Files.list(folder)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".drl") && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException e) {
            throw new RuleCompileException(List.of(folder + ": " + e.getMessage()));
        }
    }

    /** Removes the rules a pack disables; a name that matches no rule is a problem, with the pack's line. */
    private static void disable(KieBase base, Sources sources, Map<String, String> locations) {
        List<String> problems = new ArrayList<>();
        for (String name : sources.disabled()) {
            boolean removed = false;
            for (KiePackage pkg : base.getKiePackages()) {
                if (pkg.getRules().stream().anyMatch(r -> r.getName().equals(name))) {
                    base.removeRule(pkg.getName(), name);
                    locations.remove(name);
                    removed = true;
                }
            }
            if (!removed) problems.add(Pack.lineOf(sources.packs(), name) + ": disable: no rule named \"" + name + "\"");
        }
        if (!problems.isEmpty()) throw new RuleCompileException(problems);
    }

    /** Where each rule is declared: {@code file:line}, found by reading the files. */
    private static Map<String, String> locations(List<Path> files) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Path p : files) {
            String[] lines = read(p).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String rule = RuleText.ruleDeclared(lines[i]);
                if (rule != null) out.putIfAbsent(rule, p + ":" + (i + 1));
            }
        }
        return out;
    }

    static String read(Path p) {
        try {
            return dev.arbiter.model.TextFiles.readUtf8(p);
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new RuleCompileException(List.of(p + ": not UTF-8 text (a binary file, or another encoding): save it as UTF-8"));
        } catch (IOException e) {
            throw new RuleCompileException(List.of(p + ": cannot read: " + e.getMessage()));
        }
    }

    /** One line per message; drops Drools' follow-up "Parser returned a null Package" noise. */
    private static String describe(Path folder, Map<String, Path> byName, Message m) {
        String text = m.getText() == null ? "" : m.getText().replaceAll("\\s+", " ").trim();
        if (text.startsWith("Parser returned a null Package")) return null;
        Path shown = m.getPath() == null ? folder
                : byName.getOrDefault(Path.of(m.getPath()).getFileName().toString(), folder.resolve(Path.of(m.getPath()).getFileName()));
        int line = m.getLine();
        if (line <= 0) {
            Matcher lm = Pattern.compile("\\[Line: (\\d+)").matcher(text);
            if (lm.find()) line = Integer.parseInt(lm.group(1));
        }
        return shown + ":" + Math.max(line, 0) + ": " + text;
    }

    private static String hash(List<Path> files) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (Path p : files) {
                md.update(p.getFileName().toString().getBytes(StandardCharsets.UTF_8));
                md.update(Files.readAllBytes(p));
            }
            return HexFormat.of().formatHex(md.digest()).substring(0, 12);
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new RuleCompileException(List.of("cannot hash rules: " + e.getMessage()));
        }
    }

    KieSession newSession() {
        return kieBase.newKieSession();
    }

    public Path folder() {
        return folder;
    }

    /** True when the compiled rules were read from the {@link #cache()} rather than compiled. */
    public boolean fromCache() {
        return fromCache;
    }

    /** Where this policy's compiled rules were looked up, and where a reload of its folder looks. */
    public RulesCache cache() {
        return cache;
    }

    /** The rule files that went in, after overlaying (a pack's own and its base's), sorted by file name. */
    public List<Path> files() {
        return files;
    }

    /** The policy's settings: the defaults, overlaid by each {@code policy.yaml} from the base up. */
    public PolicySettings settings() {
        return settings;
    }

    /** This policy with another scoring mode (the same compiled rules): a scheduler's {@code --scoring} override. */
    public RuleBook withScoring(dev.arbiter.policy.ScoringMode mode) {
        if (mode == settings.scoring().mode()) return this;
        return new RuleBook(folder, files, kieBase, generation, settings.withScoring(mode), ruleLocations, packName, cache,
                fromCache);
    }

    /**
     * This policy with other settings (the same compiled rules): {@code arbiter whatif} tries a setting changed, as a
     * {@code policy.yaml} saying so would.
     */
    public RuleBook withSettings(PolicySettings other) {
        return new RuleBook(folder, files, kieBase, generation, other, ruleLocations, packName, cache, fromCache);
    }

    /** This policy with another deadline per rules phase (the same compiled rules): validate runs with a short one. */
    public RuleBook withDeadline(java.time.Duration deadline) {
        PolicySettings.Limits l = settings.limits();
        PolicySettings s = new PolicySettings(settings.churn(), settings.orders(), settings.victims(), settings.scoring(),
                settings.shares(), settings.cycle(), new PolicySettings.Limits(l.firingsPerFact(), l.minFirings(), deadline),
                settings.topology(), settings.runtime(), settings.reservation());
        return new RuleBook(folder, files, kieBase, generation, s, ruleLocations, packName, cache, fromCache);
    }

    /** This policy with other runtime defaults (the same compiled rules): tests and specs that state them. */
    public RuleBook withRuntime(PolicySettings.Runtime runtime) {
        PolicySettings t = settings;
        PolicySettings s = new PolicySettings(t.churn(), t.orders(), t.victims(), t.scoring(), t.shares(), t.cycle(),
                t.limits(), t.topology(), runtime, t.reservation());
        return new RuleBook(folder, files, kieBase, generation, s, ruleLocations, packName, cache, fromCache);
    }

    /**
     * The pack's name ({@code name} in {@code pack.yaml}, else its folder's name), or null for a plain rules folder.
     * {@code verify} skips the scenarios tagged {@code @differs-in-<name>} for it.
     */
    public String packName() {
        return packName;
    }

    /** A short content hash of the policy's files; equal policies have equal generations. */
    public String generation() {
        return generation;
    }

    /** {@code file:line} where the named rule is declared, or null. */
    public String locate(String rule) {
        return ruleLocations.get(rule);
    }

    /** The compiled rules, by package, for tools that inspect them (validate). */
    KieBase kieBase() {
        return kieBase;
    }

    /** The names of the rules, sorted. */
    public List<String> ruleNames() {
        List<String> names = new ArrayList<>();
        for (KiePackage pkg : kieBase.getKiePackages()) {
            for (Rule r : pkg.getRules()) names.add(r.getName());
        }
        names.sort(null);
        return names;
    }

    /** A pack's {@code pack.yaml}: its name, the folder it extends and the rules it turns off. */
    private record Pack(Path file, String name, String extendsFolder, List<String> disable) {
        static Pack read(Path file) {
            String text = RuleBook.read(file);
            Object doc;
            try {
                doc = new org.yaml.snakeyaml.Yaml().load(text);
            } catch (RuntimeException e) {
                throw new RuleCompileException(List.of(file + ":1: invalid YAML: " + e.getMessage().replaceAll("\\s+", " ")));
            }
            if (!(doc instanceof Map<?, ?> m)) throw new RuleCompileException(List.of(file + ":1: must be a mapping with extends and disable"));
            for (Object key : m.keySet()) {
                if (!"name".equals(key) && !"extends".equals(key) && !"disable".equals(key)) {
                    throw new RuleCompileException(List.of(lineOf(List.of(file), String.valueOf(key)) + ": " + key
                            + ": unknown field (known: name, extends, disable)"));
                }
            }
            if (!(m.get("extends") instanceof String base) || base.isBlank()) {
                throw new RuleCompileException(List.of(file + ":1: extends: must name the folder this pack overlays, e.g."
                        + " ../../rules, or \"shipped\" for the policy shipped with Arbiter"));
            }
            List<String> disable = new ArrayList<>();
            Object d = m.get("disable");
            if (d instanceof List<?> list) {
                for (Object o : list) disable.add(String.valueOf(o));
            } else if (d != null) {
                throw new RuleCompileException(List.of(lineOf(List.of(file), "disable") + ": disable: must be a list of rule names"));
            }
            Object name = m.get("name");
            if (name != null && !(name instanceof String n && n.matches("[A-Za-z0-9][A-Za-z0-9._-]*"))) {
                throw new RuleCompileException(List.of(lineOf(List.of(file), "name") + ": name: must be one word of letters,"
                        + " digits, '.', '_' or '-', e.g. capacity"));
            }
            Path folder = file.toAbsolutePath().normalize().getParent();
            return new Pack(file, name != null ? (String) name : String.valueOf(folder.getFileName()), base, disable);
        }

        /** The first {@code file:line} among {@code files} whose text mentions {@code text}, else the first file's line 1. */
        static String lineOf(List<Path> files, String text) {
            for (Path f : files) {
                String[] lines = RuleBook.read(f).split("\n", -1);
                for (int i = 0; i < lines.length; i++) if (lines[i].contains(text)) return f + ":" + (i + 1);
            }
            return files.isEmpty() ? "pack.yaml:1" : files.get(0) + ":1";
        }
    }
}
