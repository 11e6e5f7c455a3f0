package dev.arbiter.engine.rules;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.drools.base.definitions.InternalKnowledgePackage;
import org.drools.core.rule.JavaDialectRuntimeData;
import org.kie.api.KieBase;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;

/**
 * What compiled rules may call, checked on their bytecode: every class the Java compiler made from a rules folder (a
 * rule's consequence, {@code eval}, accumulate code, a {@code function}) names each class, method and field it uses in
 * its constant pool, and each must be on an allowlist. A call is refused however it is spelled — split over lines,
 * fully qualified, through a lambda or a method reference — because the check reads what the compiler resolved, not
 * the text.
 *
 * <p>Allowed: Arbiter's fact, model and policy types (not the few that read files); the value types of
 * {@code java.lang} (strings, boxes, {@code Math}, exceptions); {@code java.util} collections, functions and streams;
 * {@code java.time} and {@code java.math}; and the Drools classes generated rule code is made of. Everything else is
 * refused, and by name on any class: {@code getClass} (the way into reflection), the monitor methods, and parallel
 * streams (threads). So no rule exits the JVM, uses {@code Runtime}, reflection or class loading, starts a thread or a
 * process, or touches files or the network.
 *
 * <p>Constraints and {@code from} expressions are not compiled to classes by the classic engine (MVEL interprets them);
 * {@link RuleExpressions} checks those, on their parsed form.
 */
final class RuleBytecode {
    /** Classes rule code may call into, by internal name (a trailing '/' allows a whole package, not its subpackages). */
    private static final Set<String> CALLABLE = Set.of(
            "dev/arbiter/facts/", "dev/arbiter/policy/", "dev/arbiter/model/",
            "java/util/", "java/util/function/", "java/util/stream/", "java/util/regex/", "java/time/", "java/time/temporal/",
            "java/time/format/", "java/time/chrono/", "java/math/",
            "java/lang/Object", "java/lang/String", "java/lang/StringBuilder", "java/lang/StringBuffer", "java/lang/CharSequence",
            "java/lang/Math", "java/lang/StrictMath", "java/lang/Number", "java/lang/Integer", "java/lang/Long", "java/lang/Double",
            "java/lang/Float", "java/lang/Short", "java/lang/Byte", "java/lang/Boolean", "java/lang/Character", "java/lang/Void",
            "java/lang/Comparable", "java/lang/Iterable", "java/lang/Enum", "java/lang/Record", "java/lang/Cloneable",
            "java/lang/Throwable", "java/lang/Exception", "java/lang/RuntimeException", "java/lang/IllegalArgumentException",
            "java/lang/IllegalStateException", "java/lang/ArithmeticException", "java/lang/NullPointerException",
            "java/lang/IndexOutOfBoundsException", "java/lang/ArrayIndexOutOfBoundsException", "java/lang/ClassCastException",
            "java/lang/UnsupportedOperationException", "java/lang/NumberFormatException", "java/lang/AssertionError",
            "java/lang/invoke/LambdaMetafactory", "java/lang/invoke/StringConcatFactory",
            // what the Java dialect's generated consequence, eval and accumulate classes are made of
            "org/kie/api/runtime/rule/", "org/kie/api/definition/rule/", "org/drools/core/rule/consequence/KnowledgeHelper",
            "org/drools/base/rule/Declaration", "org/drools/base/reteoo/BaseTuple", "org/drools/core/common/InternalFactHandle",
            "org/drools/base/base/ValueResolver", "org/drools/base/rule/consequence/Consequence",
            "org/drools/base/rule/consequence/ConsequenceContext", "org/drools/base/rule/accessor/CompiledInvoker",
            "org/drools/base/rule/accessor/EvalExpression", "org/drools/base/rule/accessor/ReturnValueExpression",
            "org/drools/base/rule/accessor/Accumulator", "org/drools/base/rule/accessor/PredicateExpression",
            "org/drools/base/rule/accessor/Wireable", "org/drools/base/definitions/rule/impl/RuleImpl",
            "org/drools/core/WorkingMemory", "org/drools/core/reteoo/LeftTuple", "org/drools/base/rule/Pattern",
            "org/drools/base/rule/accessor/ReadAccessor", "org/drools/base/common/DroolsObjectInputStream",
            "org/drools/core/rule/accessor/FactHandleFactory", "org/drools/mvel/field/FieldFactory",
            "org/drools/base/rule/accessor/FieldValue", "org/drools/util/bitmask/");
    /** Arbiter classes in allowed packages that read files: never for rules. */
    private static final Set<String> REFUSED = Set.of("dev/arbiter/model/TextFiles", "dev/arbiter/model/Manifests",
            "dev/arbiter/policy/PolicySettingsReader", "java/util/ServiceLoader", "java/util/Timer", "java/util/TimerTask",
            "java/util/Scanner", "java/util/ResourceBundle", "java/util/PropertyResourceBundle", "java/util/Properties",
            "java/util/Formatter");
    /** Types that may be named (in a signature or a lambda's bootstrap) but not called. */
    private static final Set<String> NAMEABLE = Set.of("java/lang/invoke/MethodHandles$Lookup", "java/lang/invoke/MethodHandle",
            "java/lang/invoke/MethodType", "java/lang/invoke/CallSite", "java/lang/invoke/MethodHandles",
            // a function's class is Externalizable, with empty methods that say these in their signatures
            "java/io/Externalizable", "java/io/ObjectInput", "java/io/ObjectOutput", "java/io/IOException",
            "java/lang/ClassNotFoundException",
            // modify( $f ) { ... } tells the engine the fact's class; no method of Class may be called
            "java/lang/Class");
    /** Members refused on any class: the way from an object into reflection, monitors, and streams on other threads. */
    private static final Set<String> REFUSED_MEMBERS = Set.of("getClass", "getDeclaringClass", "wait", "notify", "notifyAll",
            "finalize", "parallel", "parallelStream", "parallelSort", "parallelSetAll", "parallelPrefix", "setDefault");
    /** Methods of allowed classes that read the JVM's system properties. */
    private static final Set<String> REFUSED_METHODS = Set.of("java/lang/Integer.getInteger", "java/lang/Long.getLong",
            "java/lang/Boolean.getBoolean");

    private static final Pattern INVOKER_KIND = Pattern.compile("[A-Za-z]+[0-9]*Invoker");

    private RuleBytecode() {}

    /**
     * One {@code file:line: rule "name" calls X: ...} (or the package, for a class of no rule) per refused reference in
     * {@code base}'s compiled rule classes; {@code locations} gives each rule's {@code file:line}.
     */
    static List<String> refusedCalls(KieBase base, Map<String, String> locations) {
        Set<String> out = new LinkedHashSet<>();
        for (KiePackage p : base.getKiePackages()) {
            InternalKnowledgePackage pkg = (InternalKnowledgePackage) p;
            if (!(pkg.getDialectRuntimeRegistry().getDialectData("java") instanceof JavaDialectRuntimeData java)) continue;
            Set<String> own = new LinkedHashSet<>();
            for (String file : java.getStore().keySet()) own.add(file.endsWith(".class") ? file.substring(0, file.length() - 6) : file);
            Set<String> declared = new LinkedHashSet<>();
            pkg.getTypeDeclarations().values().forEach(t -> declared.add(t.getTypeClassName().replace('.', '/')));
            own.addAll(declared);
            Set<String> functions = new LinkedHashSet<>();
            pkg.getFunctions().keySet().forEach(f -> functions.add(pkg.getName().replace('.', '/') + "/" + ucFirst(f)));
            Map<String, String> ruleOfClass = ruleClassPrefixes(p);
            for (Map.Entry<String, byte[]> e : new TreeMap<>(java.getStore()).entrySet()) {
                String cls = e.getKey().endsWith(".class") ? e.getKey().substring(0, e.getKey().length() - 6) : e.getKey();
                if (declared.contains(cls)) continue; // a declared fact type: Drools generates all of its code
                String where = whereIs(cls, ruleOfClass, locations, p.getName());
                boolean invoker = !functions.contains(cls) && isInvoker(cls, own);
                try {
                    for (String refused : withoutRepeats(refused(e.getValue(), own, invoker))) {
                        out.add(where + " calls " + refused + ": a rule may only read facts and insert policy facts (no"
                                + " reflection, class loading, files, network, processes, threads or exits)");
                    }
                } catch (IOException ex) {
                    out.add(where + ": compiled class " + cls + " cannot be read (" + ex.getMessage() + ")");
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * Whether {@code cls} is one of the invokers Drools writes from its own templates beside a rule's class (the rule's
     * class name, then a kind and {@code Invoker}): they hold no rule code (the rule's code is in the rule's class,
     * checked in full) and call into Drools' bytecode generator and compare classes, which rule code may not.
     */
    private static boolean isInvoker(String cls, Set<String> own) {
        for (String rule : own) {
            if (cls.length() > rule.length() && cls.startsWith(rule) && rule.substring(rule.lastIndexOf('/') + 1).startsWith("Rule_")
                    && INVOKER_KIND.matcher(cls.substring(rule.length())).matches()) {
                return true;
            }
        }
        return false;
    }

    private static String ucFirst(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    /** The findings, without a class named alone when a call into it is named too ({@code System} beside {@code System.exit}). */
    private static List<String> withoutRepeats(List<String> found) {
        List<String> out = new ArrayList<>();
        for (String f : found) {
            String type = f.contains(" (in ") ? f.substring(0, f.indexOf(" (in ")) : f;
            boolean named = found.stream().anyMatch(g -> !g.equals(f) && !g.contains(" (in ") && (g.startsWith(type + ".")
                    || f.contains(" (in ") && g.equals(type)));
            if (!named) out.add(f);
        }
        return out;
    }

    /** Whether rule code may call into {@code type} (an internal name, {@code a/b/C}). */
    static boolean allowedType(String type) {
        return callable(type, Set.of(), false);
    }

    /**
     * Classes of a site's own that rules may call besides the allowlist: {@code -Darbiter.rules.trustedClasses=} a
     * comma-separated list of class names or package prefixes ending in '.'. What they do is then the site's
     * responsibility (a test's gate that holds a rule, a helper library). Read at each load.
     */
    private static boolean trusted(String type) {
        String list = System.getProperty("arbiter.rules.trustedClasses", "");
        if (list.isBlank()) return false;
        String dotted = type.replace('/', '.');
        for (String t : list.split(",")) {
            String name = t.trim();
            if (!name.isEmpty() && (name.endsWith(".") ? dotted.startsWith(name) : dotted.equals(name))) return true;
        }
        return false;
    }

    /** Whether {@code member} is refused on every class. */
    static boolean refusedMember(String member) {
        return REFUSED_MEMBERS.contains(member);
    }

    /** {@code file:line: rule "name"} for a generated class, from its name; else the package. */
    private static String whereIs(String cls, Map<String, String> ruleOfClass, Map<String, String> locations, String pkg) {
        String simple = cls.substring(cls.lastIndexOf('/') + 1);
        String best = null;
        for (Map.Entry<String, String> r : ruleOfClass.entrySet()) {
            if (simple.startsWith(r.getKey()) && (best == null || r.getKey().length() > best.length())) best = r.getKey();
        }
        if (best == null) return "package " + pkg + ": class " + simple;
        String rule = ruleOfClass.get(best);
        String at = locations.get(rule);
        return (at != null ? at + ": " : "") + "rule \"" + rule + "\"";
    }

    /** Each rule's generated class-name prefix ({@code Rule_} and its name made a legal identifier), to its name. */
    private static Map<String, String> ruleClassPrefixes(KiePackage p) {
        Map<String, String> out = new TreeMap<>();
        for (Rule r : p.getRules()) out.put("Rule_" + legal(r.getName()), r.getName());
        return out;
    }

    /** A rule name as Drools spells it in a class name: spaces are '_', other non-identifier characters {@code $uN$}. */
    private static String legal(String name) {
        StringBuilder b = new StringBuilder();
        for (char c : name.toCharArray()) {
            if (c == ' ') b.append('_');
            else if (Character.isJavaIdentifierPart(c) && c != '$') b.append(c);
            else b.append("$u").append((int) c).append('$');
        }
        return b.toString();
    }

    /** The references of one class file that the allowlist refuses, each as {@code owner.member} or a class name. */
    static List<String> refused(byte[] classFile, Set<String> own, boolean invoker) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) throw new IOException("not a class file");
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        int[] tag = new int[count];
        int[] a = new int[count];
        int[] b = new int[count];
        String[] utf = new String[count];
        for (int i = 1; i < count; i++) {
            tag[i] = in.readUnsignedByte();
            switch (tag[i]) {
                case 1 -> utf[i] = in.readUTF();
                case 3, 4 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++;
                }
                case 7, 8, 16, 19, 20 -> a[i] = in.readUnsignedShort();
                case 9, 10, 11, 12, 17, 18 -> {
                    a[i] = in.readUnsignedShort();
                    b[i] = in.readUnsignedShort();
                }
                case 15 -> {
                    a[i] = in.readUnsignedByte();
                    b[i] = in.readUnsignedShort();
                }
                default -> throw new IOException("unknown constant pool tag " + tag[i]);
            }
        }
        Set<String> out = new LinkedHashSet<>();
        for (int i = 1; i < count; i++) {
            switch (tag[i]) {
                case 7 -> {
                    String name = utf[a[i]];
                    String type = name.startsWith("[") ? elementType(name) : name;
                    if (type != null && !nameable(type, own, invoker)) out.add(dotted(type));
                }
                case 9, 10, 11 -> {
                    String owner = utf[a[a[i]]];
                    String member = utf[a[b[i]]];
                    String descriptor = utf[b[b[i]]];
                    String ownerType = owner.startsWith("[") ? elementType(owner) : owner;
                    if (ownerType != null && !callable(ownerType, own, invoker)) out.add(dotted(ownerType) + "." + member);
                    else if (REFUSED_MEMBERS.contains(member) && !(invoker && member.equals("getClass"))
                            || REFUSED_METHODS.contains(owner + "." + member)) {
                        out.add(dotted(owner) + "." + member);
                    }
                    for (String t : typesOf(descriptor)) {
                        if (!nameable(t, own, invoker)) out.add(dotted(t) + " (in " + dotted(owner) + "." + member + ")");
                    }
                }
                case 16 -> {
                    for (String t : typesOf(utf[a[i]])) if (!nameable(t, own, invoker)) out.add(dotted(t));
                }
                case 17, 18 -> {
                    for (String t : typesOf(utf[b[b[i]]])) if (!nameable(t, own, invoker)) out.add(dotted(t));
                }
                default -> { }
            }
        }
        // A class of rule code that declares finalize() (an anonymous class in a consequence) would run code on the
        // JVM's finalizer thread, outside every rule limit.
        in.readUnsignedShort(); // access flags
        in.readUnsignedShort(); // this class
        in.readUnsignedShort(); // super class
        in.skipNBytes(2L * in.readUnsignedShort()); // interfaces
        int fields = in.readUnsignedShort();
        for (int f = 0; f < fields; f++) {
            in.skipNBytes(6);
            skipAttributes(in);
        }
        int methods = in.readUnsignedShort();
        for (int m = 0; m < methods; m++) {
            in.readUnsignedShort();
            String name = utf[in.readUnsignedShort()];
            String descriptor = utf[in.readUnsignedShort()];
            if ("finalize".equals(name) && "()V".equals(descriptor)) out.add("finalize (it declares a finalizer)");
            skipAttributes(in);
        }
        return List.copyOf(out);
    }

    private static void skipAttributes(DataInputStream in) throws IOException {
        int n = in.readUnsignedShort();
        for (int i = 0; i < n; i++) {
            in.readUnsignedShort();
            in.skipNBytes(in.readInt() & 0xFFFFFFFFL);
        }
    }

    private static boolean callable(String type, Set<String> own, boolean invoker) {
        if (invoker && type.startsWith("org/drools/mvel/asm/") && type.indexOf('/', 20) < 0) return true;
        if (own.contains(type) || REFUSED.contains(type)) return own.contains(type);
        String outer = type.contains("$") ? type.substring(0, type.indexOf('$')) : type;
        if (REFUSED.contains(outer)) return false;
        if (CALLABLE.contains(type) || CALLABLE.contains(outer) || trusted(outer)) return true;
        int slash = type.lastIndexOf('/');
        return slash > 0 && CALLABLE.contains(type.substring(0, slash + 1));
    }

    private static boolean nameable(String type, Set<String> own, boolean invoker) {
        return callable(type, own, invoker) || NAMEABLE.contains(type);
    }

    /** The class an array descriptor holds, or null for an array of primitives. */
    private static String elementType(String descriptor) {
        int i = 0;
        while (descriptor.charAt(i) == '[') i++;
        return descriptor.charAt(i) == 'L' ? descriptor.substring(i + 1, descriptor.length() - 1) : null;
    }

    /** The class types a field or method descriptor mentions. */
    private static List<String> typesOf(String descriptor) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < descriptor.length(); i++) {
            if (descriptor.charAt(i) == 'L') {
                int end = descriptor.indexOf(';', i);
                out.add(descriptor.substring(i + 1, end));
                i = end;
            }
        }
        return out;
    }

    private static String dotted(String internal) {
        return internal.replace('/', '.');
    }
}
