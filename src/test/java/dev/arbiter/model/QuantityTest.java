package dev.arbiter.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("Kubernetes quantities")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class QuantityTest {
    private static final long GI = 1L << 30;

    @ParameterizedTest(name = "\"{0}\" is {1} milli-units")
    @CsvSource(delimiter = '|', textBlock = """
            500m   | 500
            2      | 2000
            1.5    | 1500
            40m    | 40
            1e3    | 1000000
            1E3    | 1000000
            .5     | 500
            0      | 0
            +2     | 2000
            -1     | -1000
            ' 3 '  | 3000
            1Ki    | 1024000
            128Mi  | 134217728000
            96Gi   | 103079215104000
            1G     | 1000000000000
            2k     | 2000000
            1M     | 1000000000
            250u   | 1
            100n   | 1
            2.      | 2000
            1.25Gi | 1342177280000
            """)
    void parses(String text, long milli) {
        assertEquals(milli, Quantity.parseMilli(text));
    }

    @Test
    void fractions_of_a_milli_unit_round_up_as_kubernetes_does() {
        assertEquals(1, Quantity.parseMilli("0.1m"));
        assertEquals(2, Quantity.parseMilli("1.001m"));
    }

    @Test
    void a_yaml_number_parses_like_its_text() {
        assertEquals(8000, Quantity.parseMilli((Object) 8));
        assertEquals(1500, Quantity.parseMilli((Object) 1.5));
        assertEquals(500, Quantity.parseMilli((Object) "500m"));
        assertEquals(96 * GI * 1000, Quantity.parseMilli((Object) "96Gi"));
    }

    @ParameterizedTest(name = "\"{0}\" is rejected")
    @ValueSource(strings = {"12x", "", "  ", "abc", "1.2.3", "Gi", "1 Gi", "--1", "1e", "0x10", "1gi", "1KB", "m"})
    void rejects_what_is_not_a_quantity(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Quantity.parseMilli(text));
        assertEquals("\"" + text + "\" is not a Kubernetes quantity (expected e.g. 500m, 2, 96Gi, 1G)", e.getMessage());
    }

    @Test
    void rejects_null_and_overflow_with_readable_messages() {
        assertEquals("quantity is empty",
                assertThrows(IllegalArgumentException.class, () -> Quantity.parseMilli((String) null)).getMessage());
        assertEquals("quantity is empty",
                assertThrows(IllegalArgumentException.class, () -> Quantity.parseMilli((Object) null)).getMessage());
        assertEquals("\"10Ei\" is too large",
                assertThrows(IllegalArgumentException.class, () -> Quantity.parseMilli("10Ei")).getMessage());
    }

    @ParameterizedTest(name = "{0} {1} formats as {2}")
    @CsvSource(delimiter = '|', textBlock = """
            cpu               | 500           | 500m
            cpu               | 16000         | 16
            cpu               | 0             | 0
            cpu               | 1500          | 1500m
            nvidia.com/gpu    | 8000          | 8
            pods              | 110000        | 110
            memory            | 103079215104  | 96Gi
            memory            | 1610612736    | 1536Mi
            memory            | 1000000000    | 1000000000
            memory            | 1024          | 1Ki
            memory            | 1             | 1
            memory            | 0             | 0
            ephemeral-storage | 10737418240   | 10Gi
            hugepages-2Mi     | 2097152       | 2Mi
            """)
    void formats(String resource, long amount, String expected) {
        assertEquals(expected, Quantity.format(resource, amount));
    }

    @ParameterizedTest(name = "{0} {1} survives a round trip")
    @CsvSource({"cpu, 250m", "cpu, 96", "memory, 768Gi", "memory, 128Mi", "mars-tech.com/gpu, 8"})
    void format_and_parse_round_trip(String resource, String text) {
        assertEquals(text, Quantity.format(resource, Quantity.parseAmount(resource, text)));
    }

    @ParameterizedTest(name = "{0} {1} is stored as {2}")
    @CsvSource({"cpu, 500m, 500", "cpu, 2, 2000", "memory, 1Ki, 1024", "memory, 1500m, 2", "memory, 7Ei, 8070450532247928832",
            "ephemeral-storage, 1G, 1000000000"})
    void bytesAreStoredWholeAndEverythingElseInMilliUnits(String resource, String text, long expected) {
        assertEquals(expected, Quantity.parseAmount(resource, text));
    }

    @org.junit.jupiter.api.Test
    void aTenThousandNodeFleetOfTwoTebibyteNodesDoesNotOverflow() {
        long perNode = Quantity.parseAmount("memory", "2Ti");
        assertEquals(2L << 40, perNode);
        assertEquals(20_000L << 40, Math.multiplyExact(perNode, 10_000L));
    }

    @ParameterizedTest(name = "{0} {1} reads as {2}")
    @CsvSource(delimiter = '|', textBlock = """
            nvidia.com/gpu | 10591        | 10.6
            nvidia.com/gpu | 16000        | 16
            nvidia.com/gpu | 4126         | 4.13
            cpu            | 2500         | 2.5
            cpu            | 250          | 0.25
            cpu            | 5            | 5m
            cpu            | 0            | 0
            memory         | 274877906944 | 256Gi
            memory         | 1610612736   | 1.5Gi
            memory         | 1610612737   | 1.5Gi
            memory         | 512          | 512
            memory         | 3072         | 3Ki
            """)
    void shares_read_in_the_resources_own_units(String resource, long amount, String expected) {
        assertEquals(expected, Quantity.human(resource, amount));
        assertEquals(Quantity.parseAmount(resource, expected), Quantity.parseAmount(resource, Quantity.human(resource, amount)),
                "still a quantity Kubernetes reads");
    }
}
