package dev.arbiter.engine.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.CliRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 34, item 4: rules are contained whatever the spelling. Each case is a pack over the shipped rules whose one
 * rule reaches outside policy — exits, {@code Runtime}, reflection, class loading, files, processes, threads — in a way
 * the old per-line pattern let through (a call split over lines, fully qualified, a method reference, a condition, a
 * {@code from}, a salience expression, an MVEL consequence). Loading refuses every one, naming the file and line,
 * before any rule runs; the old check loaded all but the plain spellings, and {@code validate} then ran them.
 */
class RuleContainmentTest {
    private static final String HEAD = "package arbiter.policy;\nimport dev.arbiter.facts.QueueFact;\n";

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
            "exit split over lines    | ~then\n    System\n        .\n        exit( 42 );~                                        | java.lang.System.exit",
            "Runtime, fully qualified | ~then\n    java.lang.Runtime.getRuntime().halt( 42 );~                                     | java.lang.Runtime",
            "reflection               | ~then\n    Object r = $q.getClass().forName(\"java.lang.Runtime\");~                      | getClass",
            "a class loader           | ~then\n    ClassLoader l = drools.getRule().getClass().getClassLoader();~                 | getClass",
            "a thread's class loader  | ~then\n    Thread.currentThread().getContextClassLoader().loadClass(\"x\");~              | java.lang.Thread",
            "a file                   | ~then\n    java.nio.file.Files.writeString( java.nio.file.Path.of(\"/tmp/x\"), \"x\" );~ | java.nio.file.Files",
            "a process                | ~then\n    new ProcessBuilder( \"true\" ).start();~                                        | java.lang.ProcessBuilder",
            "a thread                 | ~then\n    new Thread( () -> { } ).start();~                                               | java.lang.Thread",
            "a method reference       | ~then\n    java.util.function.IntConsumer f = System::exit; f.accept( 42 );~               | java.lang.System.exit",
            "a socket                 | ~then\n    new java.net.Socket();~                                                         | java.net.Socket",
            "a parallel stream        | ~then\n    java.util.List.of( 1 ).parallelStream().count();~                               | parallelStream",
            "a finalizer              | ~then\n    new java.util.ArrayList<String>() { protected void finalize() { while (true) { } } };~ | finalize",
    })
    void aConsequenceIsCheckedOnItsBytecode(String name, String consequence, String named) throws IOException {
        Path pack = pack("rule \"escape: " + name + "\"\nruleflow-group \"policy\"\nwhen\n    $q : QueueFact( )\n" + consequence + "\nend\n");
        RuleCompileException e = assertThrows(RuleCompileException.class, () -> RuleBook.load(pack));
        assertTrue(e.problems().stream().anyMatch(p -> p.startsWith(pack.resolve("escape.drl") + ":3: rule \"escape: " + name
                + "\" calls ") && p.contains(named)), String.join("\n", e.problems()));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
            "a condition       | ~    QueueFact( name == String.valueOf( java.lang.Runtime.getRuntime().availableProcessors() ) )~ | 5 | 'java'",
            "a condition's getClass | ~    QueueFact( this.class.name != \"\" )~                                              | 5 | 'class'",
            "a from            | ~    $e : String( ) from System.getenv().keySet()~                                               | 5 | 'System'",
            "a split condition | ~    QueueFact( name ==\n        java.lang.System.getenv( \"HOME\" ) )~                         | 6 | 'java'",
    })
    void aConditionIsCheckedOnTheNamesItUses(String name, String condition, int line, String named) throws IOException {
        Path pack = pack("rule \"escape: " + name + "\"\nruleflow-group \"policy\"\nwhen\n    $q : QueueFact( )\n" + condition
                + "\nthen\nend\n");
        RuleCompileException e = assertThrows(RuleCompileException.class, () -> RuleBook.load(pack));
        assertTrue(e.problems().stream().anyMatch(p -> p.startsWith(pack.resolve("escape.drl") + ":" + (line + 2) + ": " + named
                + " in a condition")), String.join("\n", e.problems()));
    }

    @Test
    void expressionAttributesAnMvelConsequenceForeignImportsAndDeclaredFieldsAreRefused() throws IOException {
        Path pack = pack("import java.io.File;\nimport function java.lang.System.exit;\n"
                + "rule \"escape: salience\"\nsalience ( java.lang.Runtime.getRuntime().availableProcessors() )\n"
                + "ruleflow-group \"policy\"\nwhen\n    QueueFact( )\nthen\nend\n"
                + "rule \"escape: mvel\"\ndialect \"mvel\"\nruleflow-group \"policy\"\nwhen\n    QueueFact( )\nthen\n    System.exit( 42 );\nend\n"
                + "declare Handle\n    file : java.io.File\nend\n"
                + "rule \"escape: enabled\"\nenabled ( java.lang.Runtime.getRuntime().availableProcessors() > 0 )\n"
                + "ruleflow-group \"policy\"\nwhen\n    QueueFact( )\nthen\nend\n");
        RuleCompileException e = assertThrows(RuleCompileException.class, () -> RuleBook.load(pack));
        String all = String.join("\n", e.problems());
        Path f = pack.resolve("escape.drl");
        assertTrue(all.contains(f + ":3: import java.io.File: a policy may import"), all);
        assertTrue(all.contains(f + ":4: import function: not allowed"), all);
        assertTrue(all.contains(f + ":6: 'java' in a condition"), all);
        assertTrue(all.contains(f + ":13: dialect \"mvel\": not allowed"), all);
        assertTrue(all.contains(f + ":21: declared field file : java.io.File: not a type a policy may use"), all);
        assertTrue(all.contains(f + ":24: 'java' in a condition"), all);
    }

    /** What a policy may use stays usable: values, collections, streams, lambdas, functions, declared types, modify. */
    @Test
    void rulesThatOnlyComputeLoad() throws IOException {
        Path pack = pack("import java.util.List;\nimport java.util.stream.Collectors;\ndeclare Seen\n    queue : String\n    n : int\nend\n"
                + "function int twice(int n) { return Math.max(n, 0) * 2; }\n"
                + "rule \"fine: values and collections\"\nsalience 5\nruleflow-group \"policy\"\nwhen\n"
                + "    $q : QueueFact( name != null, name.length() > 0, name matches \"[a-z].*\" )\n"
                + "    $names : List( ) from collect( QueueFact( ) )\nthen\n"
                + "    String s = List.of( $q.getName() ).stream().map( String::toUpperCase ).collect( Collectors.joining( \",\" ) );\n"
                + "    insert( new Seen( s + String.format( \"%d\", twice( $names.size() ) ), twice( 1 ) ) );\nend\n"
                + "rule \"fine: modify a declared fact\"\nruleflow-group \"policy\"\nwhen\n    $s : Seen( n < 2 )\nthen\n"
                + "    modify( $s ) { setN( $s.getN() + 1 ) }\nend\n");
        RuleBook book = RuleBook.load(pack);
        assertTrue(book.ruleNames().contains("fine: modify a declared fact"), book.ruleNames().toString());
    }

    /** The command a platform engineer runs says it in one line per finding and exits 3, running nothing. */
    @Test
    void validateRefusesWithExit3() throws IOException {
        Path pack = pack("rule \"escape: exit\"\nruleflow-group \"policy\"\nwhen\n    QueueFact( )\nthen\n    System\n        .exit( 42 );\nend\n");
        CliRunner r = CliRunner.run("validate", "--rules", pack.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains(pack.resolve("escape.drl") + ":3: rule \"escape: exit\" calls java.lang.System.exit"), r.err());
    }

    private Path pack(String rules) throws IOException {
        Path pack = dir.resolve("pack");
        Files.createDirectories(pack);
        Files.writeString(pack.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(pack.resolve("escape.drl"), HEAD + rules);
        return pack;
    }
}
