package dev.arbiter.engine.rules;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the parts of a rule that are not compiled to classes may name. The classic engine interprets conditions,
 * {@code from} sources and expression attributes ({@code salience}, {@code enabled}, timers) with MVEL, so
 * {@link RuleBytecode} cannot see them; here every identifier in them must be something a condition may read: a
 * fact type the file imports (from the packages {@link RuleBytecode} allows), a type of {@code java.lang}'s value
 * types, a property, method or constant of one of those types (or of a type they return), a binding, a declared type
 * or field, a function of the package (whose class {@link RuleBytecode} checks), or a word of DRL. A name outside
 * that list is refused however the text is laid out: {@code java.lang.Runtime} starts with {@code java}, reflection
 * needs {@code getClass} or {@code class}.
 *
 * <p>Consequences, functions and {@code eval}s are Java, checked on their bytecode; a rule or package in
 * {@code dialect "mvel"} would interpret its consequence too, so it is refused. So are {@code import function} and
 * {@code import accumulate}, which would bring code the check never sees.
 */
final class RuleExpressions {
    /** Words of DRL and MVEL a condition may use: structure, operators, literals, primitive types. */
    private static final Set<String> WORDS = Set.of("when", "then", "end", "rule", "query", "extends", "from", "accumulate",
            "acc", "collect", "not", "exists", "forall", "eval", "or", "and", "over", "window", "entry", "point", "init",
            "action", "reverse", "result", "in", "notIn", "contains", "excludes", "memberOf", "matches", "soundslike", "str",
            "instanceof", "isA", "null", "true", "false", "this", "new", "if", "do", "break", "after", "before", "coincides",
            "during", "finishes", "finishedby", "includes", "meets", "metby", "overlaps", "overlappedby", "starts", "startedby",
            "length", "time", "int", "long", "double", "float", "boolean", "char", "short", "byte", "void", "sum", "count",
            "min", "max", "average", "collectList", "collectSet", "countDistinct", "salience", "ruleflow", "group", "agenda",
            "activation", "no", "loop", "lock", "on", "active", "auto", "focus", "dialect", "enabled", "date", "effective",
            "expires", "duration", "timer", "calendars", "refract", "direct", "declare", "unit", "cron", "expr");
    /** Types a condition may name without an import (MVEL resolves {@code java.lang} itself). */
    private static final List<Class<?>> BASE = List.of(String.class, Math.class, Integer.class, Long.class, Double.class,
            Float.class, Short.class, Byte.class, Boolean.class, Character.class, Number.class, Object.class, Comparable.class,
            CharSequence.class, Iterable.class, java.util.List.class, java.util.Map.class, java.util.Set.class,
            java.util.Collection.class, java.util.Optional.class, java.util.Iterator.class, Map.Entry.class);
    private static final Map<Class<?>, Set<String>> MEMBERS = new ConcurrentHashMap<>();
    private static final Map<Class<?>, List<Class<?>>> RETURNED = new ConcurrentHashMap<>();

    private RuleExpressions() {}

    /** One {@code file:line: ...} per name in {@code files}' conditions that a condition may not use. */
    static List<String> refusedNames(List<Path> files, ClassLoader loader) {
        List<String> out = new ArrayList<>();
        for (Path file : files) out.addAll(check(file, RuleBook.read(file), loader));
        return out;
    }

    private record Token(String text, int line, boolean ident) {}

    static List<String> check(Path file, String text, ClassLoader loader) {
        List<Token> tokens = lex(text);
        List<String> out = new ArrayList<>();
        Set<String> types = new HashSet<>();
        Set<String> names = new HashSet<>();
        Set<Class<?>> reachable = new LinkedHashSet<>(BASE);
        for (Class<?> c : BASE) types.add(c.getSimpleName());
        // First pass: imports, globals, declared types and their fields, functions, at the top level.
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (!t.ident()) continue;
            switch (t.text()) {
                case "import" -> {
                    String next = i + 1 < tokens.size() ? tokens.get(i + 1).text() : "";
                    if (next.equals("function") || next.equals("accumulate") || next.equals("static")) {
                        out.add(file + ":" + t.line() + ": import " + next + ": not allowed in a policy (it brings code that"
                                + " is not checked); write a function in the package instead");
                        continue;
                    }
                    String name = qualified(tokens, i + 1);
                    if (name.endsWith(".*")) {
                        out.add(file + ":" + t.line() + ": import " + name + ": import each type by name");
                        continue;
                    }
                    if (!RuleBytecode.allowedType(name.replace('.', '/'))) {
                        out.add(file + ":" + t.line() + ": import " + name + ": a policy may import Arbiter's fact, model and"
                                + " policy types and java.util/java.time value types only");
                        continue;
                    }
                    types.add(name.substring(name.lastIndexOf('.') + 1));
                    Class<?> c = load(name, loader);
                    if (c != null) reachable.add(c);
                }
                case "global" -> {
                    String name = qualified(tokens, i + 1);
                    if (!types.contains(name) && !RuleBytecode.allowedType(name.replace('.', '/'))) {
                        out.add(file + ":" + t.line() + ": global " + name + ": not a type a policy may use");
                    }
                    int after = i + 1 + name.split("\\.").length * 2 - 1;
                    if (after < tokens.size()) names.add(tokens.get(after).text());
                }
                case "declare" -> {
                    if (i + 1 < tokens.size()) {
                        types.add(tokens.get(i + 1).text());
                        names.add(tokens.get(i + 1).text());
                    }
                }
                case "function" -> {
                    int k = i + 1;
                    while (k + 1 < tokens.size() && !tokens.get(k + 1).text().equals("(")) k++;
                    if (k < tokens.size()) names.add(tokens.get(k).text());
                }
                case "dialect" -> {
                    if (i + 1 < tokens.size() && tokens.get(i + 1).text().equals("\"mvel\"")) {
                        out.add(file + ":" + t.line() + ": dialect \"mvel\": not allowed in a policy (its consequences are"
                                + " interpreted, so what they call cannot be checked); write Java consequences");
                    }
                }
                default -> { }
            }
        }
        // Declared fields: "name : Type" inside declare ... end; a field's type is a type a rule may use.
        boolean inDeclare = false;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.ident() && t.text().equals("declare")) inDeclare = true;
            else if (inDeclare && t.ident() && t.text().equals("end")) inDeclare = false;
            else if (inDeclare && t.ident() && i + 2 < tokens.size() && tokens.get(i + 1).text().equals(":")) {
                names.add(t.text());
                String type = qualified(tokens, i + 2);
                if (!WORDS.contains(type) && !types.contains(type) && !RuleBytecode.allowedType(type.replace('.', '/'))) {
                    out.add(file + ":" + t.line() + ": declared field " + t.text() + " : " + type + ": not a type a policy may"
                            + " use");
                }
            }
        }
        Set<String> members = membersOf(reachable);
        // Second pass: the conditions (between when and then, and a query's body) and expression attributes.
        List<Integer> interpreted = interpreted(tokens);
        int depthBracket = 0;
        for (int k = 0; k < interpreted.size(); k++) {
            int i = interpreted.get(k);
            String s = tokens.get(i).text();
            if (s.equals("[")) depthBracket++;
            if (s.equals("]")) depthBracket--;
            if (!tokens.get(i).ident()) continue;
            String next = i + 1 < tokens.size() ? tokens.get(i + 1).text() : "";
            String before = i > 0 ? tokens.get(i - 1).text() : "";
            if ((next.equals(":") || next.equals(":=")) && depthBracket == 0 && !before.equals("?") && !before.equals(".")) {
                names.add(s); // a binding
            }
        }
        for (int i : interpreted) {
            Token t = tokens.get(i);
            if (t.ident()) refuse(file, t, i > 0 && tokens.get(i - 1).text().equals("."), types, names, members, out);
        }
        return out;
    }

    private static boolean opens(List<Token> tokens, int i) {
        return i < tokens.size() && tokens.get(i).text().equals("(");
    }

    /** The position of the ')' that closes the '(' at {@code open} (the last token if none does). */
    private static int closing(List<Token> tokens, int open) {
        int depth = 0;
        for (int k = open; k < tokens.size(); k++) {
            String x = tokens.get(k).text();
            if (x.equals("(")) depth++;
            else if (x.equals(")") && --depth == 0) return k;
        }
        return tokens.size() - 1;
    }

    /** Rule attributes whose value Drools evaluates as an expression. */
    private static final Set<String> EXPRESSION_ATTRIBUTES = Set.of("salience", "enabled", "duration", "timer", "calendars");

    /**
     * The positions of the tokens Drools interprets: a rule's conditions (from {@code when} to {@code then}, and a
     * query's body to its {@code end}, those words counting only outside parentheses), less accumulate's
     * {@code init/action/reverse/result} blocks (Java, compiled with the rule); and the parenthesised value of an
     * expression attribute ({@code salience ( ... )}).
     */
    private static List<Integer> interpreted(List<Token> tokens) {
        List<Integer> out = new ArrayList<>();
        boolean inLhs = false;
        boolean inQuery = false;
        int depth = 0;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            String s = t.text();
            if (!inLhs) {
                if (t.ident() && (s.equals("when") || s.equals("query"))) {
                    inLhs = true;
                    inQuery = s.equals("query");
                    depth = 0;
                    if (inQuery) i++; // the query's name
                } else if (t.ident() && EXPRESSION_ATTRIBUTES.contains(s) && opens(tokens, i + 1)) {
                    int close = closing(tokens, i + 1);
                    for (int k = i + 2; k < close; k++) out.add(k);
                    i = close;
                }
                continue;
            }
            if (s.equals("(")) depth++;
            if (s.equals(")")) depth--;
            if (depth == 0 && t.ident() && (s.equals("then") || inQuery && s.equals("end"))) {
                inLhs = false;
                continue;
            }
            if (t.ident() && (s.equals("init") || s.equals("action") || s.equals("reverse") || s.equals("result"))
                    && opens(tokens, i + 1)) {
                i = closing(tokens, i + 1);
                continue;
            }
            out.add(i);
        }
        return out;
    }

    private static void refuse(Path file, Token t, boolean afterDot, Set<String> types, Set<String> names, Set<String> members,
                               List<String> out) {
        String s = t.text();
        if (s.startsWith("$") || members.contains(s) || names.contains(s)) return;
        if (!afterDot && (WORDS.contains(s) || types.contains(s))) return;
        String line = file + ":" + t.line() + ": '" + s + "' in a condition: not a fact property, binding or type a rule may"
                + " read (conditions may only read facts: no reflection, class loading, files, network, processes,"
                + " threads or exits)";
        if (!out.contains(line)) out.add(line);
    }

    /** The dotted name starting at token {@code i} ({@code a.b.C}, or {@code a.b.*}). */
    private static String qualified(List<Token> tokens, int i) {
        StringBuilder b = new StringBuilder();
        while (i < tokens.size()) {
            b.append(tokens.get(i).text());
            if (i + 2 < tokens.size() && tokens.get(i + 1).text().equals(".")) {
                b.append('.');
                i += 2;
            } else {
                break;
            }
        }
        return b.toString();
    }

    /**
     * The names a condition may use on {@code roots} and every allowed type their public methods and fields give: each
     * method whose result is an allowed type (or primitive), its property form ({@code getName} → {@code name}), and
     * public fields and constants. The methods refused on any class ({@code getClass}, ...) are never among them.
     */
    private static Set<String> membersOf(Set<Class<?>> roots) {
        Set<String> out = new HashSet<>();
        Set<Class<?>> seen = new HashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>(roots);
        while (!todo.isEmpty()) {
            Class<?> c = todo.pop();
            if (!seen.add(c)) continue;
            out.addAll(MEMBERS.computeIfAbsent(c, RuleExpressions::ownMembers));
            todo.addAll(RETURNED.computeIfAbsent(c, RuleExpressions::returnedTypes));
        }
        return out;
    }

    /** The allowed types {@code c}'s public methods return, type arguments included. */
    private static List<Class<?>> returnedTypes(Class<?> c) {
        Set<Class<?>> out = new LinkedHashSet<>();
        for (Method m : c.getMethods()) {
            for (Class<?> r : typesIn(m.getGenericReturnType())) if (allowed(r)) out.add(r);
        }
        return List.copyOf(out);
    }

    private static Set<String> ownMembers(Class<?> c) {
        Set<String> out = new HashSet<>();
        for (Method m : c.getMethods()) {
            if (RuleBytecode.refusedMember(m.getName())) continue;
            Class<?> r = m.getReturnType();
            if (!(r.isPrimitive() || allowed(r) || r == Object.class)) continue;
            out.add(m.getName());
            String n = m.getName();
            if (m.getParameterCount() == 0) {
                if (n.startsWith("get") && n.length() > 3) out.add(Character.toLowerCase(n.charAt(3)) + n.substring(4));
                if (n.startsWith("is") && n.length() > 2) out.add(Character.toLowerCase(n.charAt(2)) + n.substring(3));
            }
        }
        for (Field f : c.getFields()) {
            if (Modifier.isPublic(f.getModifiers()) && (f.getType().isPrimitive() || allowed(f.getType()))) out.add(f.getName());
        }
        return out;
    }

    private static boolean allowed(Class<?> c) {
        while (c.isArray()) c = c.getComponentType();
        return c.isPrimitive() || RuleBytecode.allowedType(c.getName().replace('.', '/'));
    }

    private static List<Class<?>> typesIn(Type t) {
        List<Class<?>> out = new ArrayList<>();
        if (t instanceof Class<?> c) out.add(c.isArray() ? c.getComponentType() : c);
        else if (t instanceof ParameterizedType p) {
            out.addAll(typesIn(p.getRawType()));
            for (Type a : p.getActualTypeArguments()) out.addAll(typesIn(a));
        }
        return out;
    }

    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null; // compiling reports the unknown import with its line
        }
    }

    /**
     * The DRL's tokens: identifiers (with {@code $}), strings kept whole as one non-identifier token, punctuation one
     * character each ({@code :=} as one), comments dropped, numbers as non-identifiers.
     */
    static List<Token> lex(String text) {
        List<Token> out = new ArrayList<>();
        int line = 1;
        int n = text.length();
        for (int i = 0; i < n; ) {
            char c = text.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '/') {
                while (i < n && text.charAt(i) != '\n') i++;
            } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
                int end = text.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                for (int k = i; k < end; k++) if (text.charAt(k) == '\n') line++;
                i = end;
            } else if (c == '"' || c == '\'' || c == '`') {
                int start = i++;
                int startLine = line;
                while (i < n && text.charAt(i) != c) {
                    if (text.charAt(i) == '\\') i++;
                    else if (text.charAt(i) == '\n') line++;
                    i++;
                }
                i = Math.min(n, i + 1);
                out.add(new Token(text.substring(start, i), startLine, false));
            } else if (Character.isJavaIdentifierStart(c)) {
                int start = i;
                while (i < n && Character.isJavaIdentifierPart(text.charAt(i))) i++;
                out.add(new Token(text.substring(start, i), line, true));
            } else if (Character.isDigit(c)) {
                while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '.' && i + 1 < n
                        && Character.isDigit(text.charAt(i + 1)))) i++;
                out.add(new Token("0", line, false));
            } else if (c == ':' && i + 1 < n && text.charAt(i + 1) == '=') {
                out.add(new Token(":=", line, false));
                i += 2;
            } else {
                out.add(new Token(String.valueOf(c), line, false));
                i++;
            }
        }
        return out;
    }
}
