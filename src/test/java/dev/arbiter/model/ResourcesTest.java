package dev.arbiter.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("Resource vectors")
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class ResourcesTest {
    private static final Resources NODE = Resources.of("cpu", 96, "memory", "768Gi", "pods", 110, "nvidia.com/gpu", 8);
    private static final Resources GPU_POD = Resources.of("cpu", 16, "memory", "128Gi", "pods", 1, "nvidia.com/gpu", 8);

    private static Resources r(Object... nameAmount) {
        return Resources.of(nameAmount);
    }

    @Test
    void builds_from_quantity_strings_numbers_and_milli_units_alike() {
        Resources expected = Resources.ofMilli(Map.of("cpu", 500L, "memory", 1024L * 1024 * 1024));
        assertEquals(expected, Resources.parse(Map.of("cpu", "500m", "memory", "1Gi")));
        assertEquals(expected, r("cpu", "500m", "memory", "1Gi"));
        assertEquals(r("nvidia.com/gpu", 8), Resources.parse(Map.of("nvidia.com/gpu", 8)));
    }

    @Test
    void a_dimension_named_by_another_vector_is_found_by_identity_however_each_was_built() {
        // Two copies of the name, as two parsed manifests give them: the vectors' names are the same interned string.
        Resources node = Resources.ofMilli(Map.of(new String("nvidia.com/gpu"), 8000L, new String("cpu"), 4000L));
        Resources pod = Resources.parse(Map.of(new String("nvidia.com/gpu"), 2));
        assertEquals(8000L, node.milliInterned(pod.name(0)));
        assertEquals(0L, pod.milliInterned(node.name(0)), "cpu: absent from the pod");
        Resources sum = new Resources.Sum().add(node.subtract(pod)).toResources();
        assertEquals(2000L, pod.milliInterned(sum.name(1)));
        assertEquals(6000L, sum.milliInterned(pod.name(0)));
    }

    @Test
    void sums_hold_at_the_limit_instead_of_wrapping_round() {
        Resources huge = Resources.ofMilli(Map.of("cpu", Long.MAX_VALUE - 10));
        assertEquals(Long.MAX_VALUE, huge.add(huge).milli("cpu"));
        assertEquals(Long.MIN_VALUE, Resources.NONE.subtract(huge).subtract(huge).milli("cpu"));
        assertEquals(Long.MAX_VALUE, new Resources.Sum().add(huge).add(huge).toResources().milli("cpu"));
    }

    @Test
    void a_running_balance_reads_as_the_same_adds_and_subtracts_one_by_one() {
        // Saturation at both limits, and dimensions only one side has.
        Resources huge = Resources.ofMilli(Map.of("cpu", Long.MAX_VALUE - 10, "memory", 5L));
        Resources[] steps = {NODE, huge, huge, GPU_POD, huge, huge, huge, r("memory", 3), r("nvidia.com/gpu", 8), NODE};
        boolean[] subtract = {false, false, false, true, true, true, true, false, true, false};
        Resources chained = Resources.NONE;
        Resources.Sum balance = new Resources.Sum();
        for (int i = 0; i < steps.length; i++) {
            chained = subtract[i] ? chained.subtract(steps[i]) : chained.add(steps[i]);
            if (subtract[i]) balance.subtract(steps[i]);
            else balance.add(steps[i]);
            assertEquals(chained, balance.toResources(), "after step " + i);
        }
        assertEquals(Long.MIN_VALUE + 96_000, chained.milli("cpu")); // it held at MAX, then at MIN
        assertSame(GPU_POD, new Resources.Sum().add(GPU_POD).toResources());
    }

    @Test
    void zero_dimensions_are_dropped_so_equality_is_per_dimension() {
        assertEquals(Resources.NONE, r("cpu", 0));
        assertEquals(r("cpu", 1), r("cpu", 1, "memory", 0));
        assertEquals(r("cpu", 1).hashCode(), r("cpu", 1, "memory", 0).hashCode());
        assertNotEquals(r("cpu", 1), r("cpu", 2));
        assertTrue(Resources.NONE.isEmpty());
        assertEquals(0, r("cpu", 1).milli("memory"));
    }

    @Test
    void lists_dimensions_sorted_by_name() {
        Resources res = r("pods", 1, "cpu", "250m", "memory", "1Gi");
        assertEquals(3, res.size());
        assertEquals("cpu", res.name(0));
        assertEquals(250, res.milliAt(0));
        assertEquals("pods", res.name(2));
        assertEquals("{cpu: 0.25, memory: 1Gi, pods: 1}", res.toString(), "for people: each resource in its own units");
        assertEquals(Map.of("cpu", "250m", "memory", "1Gi", "pods", "1"), res.asQuantities());
        assertEquals(Map.of("cpu", 250L, "memory", 1073741824L, "pods", 1000L), res.asMilliMap());
    }

    @Test
    void adds_and_subtracts_per_dimension() {
        assertEquals(r("cpu", 3, "memory", "1Gi", "nvidia.com/gpu", 8),
                r("cpu", 1, "memory", "1Gi").add(r("cpu", 2, "nvidia.com/gpu", 8)));
        assertEquals(r("cpu", 80, "memory", "640Gi", "pods", 109), NODE.subtract(GPU_POD));
        assertEquals(r("cpu", -1), r("cpu", 1).subtract(r("cpu", 2)));
        assertEquals(Resources.NONE, GPU_POD.subtract(GPU_POD));
        assertSame(GPU_POD, GPU_POD.add(Resources.NONE));
    }

    static Stream<Arguments> fits() {
        return Stream.of(
                Arguments.of("a GPU pod fits an empty GPU node", GPU_POD, NODE, true),
                Arguments.of("five GPUs do not fit in four", r("nvidia.com/gpu", 5), r("nvidia.com/gpu", 4), false),
                Arguments.of("a dimension the node lacks does not fit", r("mars-tech.com/gpu", 1), NODE, false),
                Arguments.of("an exact fit fits", r("cpu", 96), NODE, true),
                Arguments.of("nothing fits in nothing", Resources.NONE, Resources.NONE, true),
                Arguments.of("negative dimensions are ignored", r("cpu", -1, "memory", "1Gi"), r("memory", "1Gi"), true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fits")
    void fits_in(String description, Resources request, Resources available, boolean expected) {
        assertEquals(expected, request.fitsIn(available));
    }

    @Test
    void the_shortfall_lists_only_the_missing_amounts() {
        Resources free = r("cpu", 8, "memory", "64Gi", "nvidia.com/gpu", 4, "pods", 10);
        assertEquals(r("cpu", 8, "memory", "64Gi", "nvidia.com/gpu", 4), GPU_POD.shortfall(free));
        assertEquals(Resources.NONE, GPU_POD.shortfall(NODE));
        assertEquals(r("example.com/fpga", 1), r("example.com/fpga", 1).shortfall(NODE));
    }

    @Test
    void cap_by_limits_only_the_dimensions_the_cap_names() {
        assertEquals(r("cpu", 10, "nvidia.com/gpu", 8, "memory", "128Gi"),
                r("cpu", 20, "nvidia.com/gpu", 8, "memory", "128Gi").capBy(r("cpu", 10, "nvidia.com/gpu", 16)));
        assertEquals(Resources.NONE, Resources.NONE.capBy(NODE));
    }

    @Test
    void min_max_clamp_scale_and_mask_work_per_dimension() {
        Resources a = r("cpu", 4, "memory", "1Gi");
        Resources b = r("cpu", 2, "nvidia.com/gpu", 1);
        assertEquals(r("cpu", 2), a.min(b));
        assertEquals(r("cpu", 4, "memory", "1Gi", "nvidia.com/gpu", 1), a.max(b));
        assertEquals(r("memory", "1Gi"), r("cpu", -2, "memory", "1Gi").clampNonNegative());
        assertEquals(r("cpu", 2, "memory", "512Mi"), a.scale(1, 2));
        assertEquals(r("cpu", 4), a.onlyDimensionsOf(b));
    }

    @Test
    void the_dominant_share_is_the_largest_ratio_over_shared_dimensions() {
        Resources cluster = r("cpu", 100, "nvidia.com/gpu", 32);
        assertEquals(0.5, r("cpu", 10, "nvidia.com/gpu", 16).dominantShare(cluster), 1e-9);
        assertEquals(0.25, r("cpu", 25).dominantShare(cluster), 1e-9);
        assertEquals(1.0, r("example.com/fpga", 1).dominantShare(cluster), 1e-9);
        assertEquals(0.0, Resources.NONE.dominantShare(cluster), 1e-9);
    }

    static Stream<Arguments> reaches() {
        Resources deserved = r("cpu", 8, "nvidia.com/gpu", 8);
        return Stream.of(
                Arguments.of("a full GPU share blocks a GPU request", r("nvidia.com/gpu", 8), deserved,
                        r("nvidia.com/gpu", 1), true),
                Arguments.of("a full CPU share does not block a GPU-only request", r("cpu", 8), deserved,
                        r("nvidia.com/gpu", 1), false),
                Arguments.of("room in every requested dimension does not block", r("cpu", 4, "nvidia.com/gpu", 4),
                        deserved, r("cpu", 1, "nvidia.com/gpu", 1), false),
                Arguments.of("a requested dimension without any share is reached", Resources.NONE, deserved,
                        r("example.com/fpga", 1), true),
                Arguments.of("with no request any full dimension counts", r("cpu", 8), deserved, Resources.NONE, true),
                Arguments.of("with no request and room everywhere nothing is reached", r("cpu", 4), deserved,
                        Resources.NONE, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("reaches")
    void reaches_in(String description, Resources allocated, Resources limit, Resources requested, boolean expected) {
        assertEquals(expected, allocated.reachesIn(limit, requested));
    }

    @Test
    void an_invalid_quantity_is_an_illegal_argument() {
        assertThrows(IllegalArgumentException.class, () -> r("cpu", "12x"));
        assertThrows(IllegalArgumentException.class, () -> Resources.parse(Map.of("cpu", "lots")));
    }

    @Test
    void is_not_equal_to_other_types() {
        assertFalse(r("cpu", 1).equals("cpu: 1"));
    }
}
