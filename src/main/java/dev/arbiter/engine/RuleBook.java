package dev.arbiter.engine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
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
 * A compiled policy: every {@code *.drl} file of one folder, loaded from the file system (never the classpath), so
 * platform engineers can edit rules without rebuilding Arbiter.
 *
 * <p>Compiling is all-or-nothing: {@link #load} either returns a complete rule book or throws
 * {@link RuleCompileException} listing every problem as {@code file:line: message}; a caller holding a working
 * rule book keeps it. The {@link #generation()} is a content hash of the files, stamped on decisions.
 */
public final class RuleBook {
    private static final AtomicLong BUILDS = new AtomicLong();

    private final Path folder;
    private final List<Path> files;
    private final KieBase kieBase;
    private final String generation;

    private RuleBook(Path folder, List<Path> files, KieBase kieBase, String generation) {
        this.folder = folder;
        this.files = files;
        this.kieBase = kieBase;
        this.generation = generation;
    }

    /** Compiles every {@code *.drl} file in {@code folder} (not recursive, sorted by name). */
    public static RuleBook load(Path folder) {
        List<Path> files = drlFiles(folder);
        KieServices ks = KieServices.Factory.get();
        KieFileSystem kfs = ks.newKieFileSystem();
        ReleaseId rid = ks.newReleaseId("dev.arbiter.rules", "policy-" + BUILDS.incrementAndGet(), "1.0.0");
        kfs.generateAndWritePomXML(rid);
        for (Path p : files) {
            kfs.write("src/main/resources/rules/" + p.getFileName(), ks.getResources().newFileSystemResource(p.toFile()));
        }
        KieBuilder kb = ks.newKieBuilder(kfs).buildAll();
        List<String> problems = new ArrayList<>();
        for (Message m : kb.getResults().getMessages(Message.Level.ERROR)) {
            String line = describe(folder, m);
            if (line != null && !problems.contains(line)) problems.add(line);
        }
        if (!problems.isEmpty()) throw new RuleCompileException(problems);
        KieBase base = ks.newKieContainer(rid).getKieBase();
        ks.getRepository().removeKieModule(rid);
        return new RuleBook(folder, List.copyOf(files), base, hash(files));
    }

    private static List<Path> drlFiles(Path folder) {
        if (!Files.isDirectory(folder)) {
            throw new RuleCompileException(List.of(folder + ": not a folder of .drl rule files"));
        }
        try (Stream<Path> s = Files.list(folder)) {
            List<Path> files = s.filter(p -> p.getFileName().toString().endsWith(".drl") && Files.isRegularFile(p))
                    .sorted().toList();
            if (files.isEmpty()) throw new RuleCompileException(List.of(folder + ": no .drl rule files"));
            return files;
        } catch (IOException e) {
            throw new RuleCompileException(List.of(folder + ": " + e.getMessage()));
        }
    }

    /** One line per message; drops Drools' follow-up "Parser returned a null Package" noise. */
    private static String describe(Path folder, Message m) {
        String text = m.getText() == null ? "" : m.getText().replaceAll("\\s+", " ").trim();
        if (text.startsWith("Parser returned a null Package")) return null;
        Path shown = m.getPath() == null ? folder : folder.resolve(Path.of(m.getPath()).getFileName());
        int line = m.getLine();
        if (line <= 0) {
            java.util.regex.Matcher lm = java.util.regex.Pattern.compile("\\[Line: (\\d+)").matcher(text);
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

    public KieSession newSession() {
        return kieBase.newKieSession();
    }

    public Path folder() {
        return folder;
    }

    public List<Path> files() {
        return files;
    }

    /** A short content hash of the rule files; equal folders have equal generations. */
    public String generation() {
        return generation;
    }

    /** The names of the rules, grouped by package, sorted. */
    public List<String> ruleNames() {
        List<String> names = new ArrayList<>();
        for (KiePackage pkg : kieBase.getKiePackages()) {
            for (Rule r : pkg.getRules()) names.add(r.getName());
        }
        names.sort(null);
        return names;
    }
}
