package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.parse;
import static dev.arbiter.manifest.TestManifests.podGroup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A PodGroup's {@code volcano.sh/preemptable} as Volcano's {@code GetJobPreemptable} reads it: the annotation, else the
 * label; Go's boolean words; any other value counts as false; neither set is null (the pods' markers decide).
 */
class PodGroupPreemptableTest {
    private static Boolean read(String metadata) {
        return podGroup(parse("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: %s
                spec: {minMember: 1}
                """.formatted(metadata)), "default/pg").preemptable();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "{name: pg, annotations: {volcano.sh/preemptable: \"false\"}} | false",
            "{name: pg, annotations: {volcano.sh/preemptable: \"true\"}}  | true",
            "{name: pg, annotations: {volcano.sh/preemptable: \"T\"}}     | true",
            "{name: pg, annotations: {volcano.sh/preemptable: \"0\"}}     | false",
            "{name: pg, annotations: {volcano.sh/preemptable: \"yes\"}}   | false",
            "{name: pg, labels: {volcano.sh/preemptable: \"true\"}}       | true",
            "{name: pg, annotations: {volcano.sh/preemptable: \"false\"}, labels: {volcano.sh/preemptable: \"true\"}} | false",
    })
    void theAnnotationElseTheLabelInGosBooleanWords(String metadata, boolean expected) {
        assertEquals(expected, read(metadata));
    }

    @org.junit.jupiter.api.Test
    void aPodGroupThatSaysNothingLeavesItToItsPods() {
        assertNull(read("{name: pg}"));
    }
}
