package dev.arbiter.manifest;

import static dev.arbiter.manifest.TestManifests.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.arbiter.model.Resources;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("A pod's effective requests")
class PodRequestsTest {

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("are just pods: 1 without containers requesting anything", """
                        containers:
                          - name: a
                        """, Resources.of("pods", 1)),
                Arguments.of("sum the requests of all containers", """
                        containers:
                          - resources: {requests: {cpu: 500m, memory: 1Gi}}
                          - resources: {requests: {cpu: "2", nvidia.com/gpu: 1}}
                        """, Resources.of("cpu", "2500m", "memory", "1Gi", "nvidia.com/gpu", 1, "pods", 1)),
                Arguments.of("count limits as requests for a container with only limits", """
                        containers:
                          - resources: {limits: {cpu: "4", mars-tech.com/gpu: "8"}}
                        """, Resources.of("cpu", 4, "mars-tech.com/gpu", 8, "pods", 1)),
                Arguments.of("count a limit only for the resources a container does not request", """
                        containers:
                          - resources:
                              requests: {cpu: "1"}
                              limits: {cpu: "4", memory: 2Gi}
                        """, Resources.of("cpu", 1, "memory", "2Gi", "pods", 1)),
                Arguments.of("keep an explicit zero request even with a limit", """
                        containers:
                          - resources:
                              requests: {cpu: "0"}
                              limits: {cpu: "4"}
                        """, Resources.of("pods", 1)),
                Arguments.of("take the larger of the containers' sum and each init container, per dimension", """
                        initContainers:
                          - resources: {requests: {cpu: "3", memory: 512Mi}}
                          - resources: {requests: {memory: 4Gi}}
                        containers:
                          - resources: {requests: {cpu: "1", memory: 1Gi}}
                          - resources: {requests: {cpu: "1", memory: 1Gi}}
                        """, Resources.of("cpu", 3, "memory", "4Gi", "pods", 1)),
                Arguments.of("add restartable sidecar init containers to the containers and later init containers", """
                        initContainers:
                          - name: proxy
                            restartPolicy: Always
                            resources: {requests: {cpu: "1"}}
                          - name: setup
                            resources: {requests: {cpu: "4"}}
                        containers:
                          - resources: {requests: {cpu: "2"}}
                        """, Resources.of("cpu", 5, "pods", 1)),
                Arguments.of("add the pod overhead", """
                        overhead: {cpu: 250m, memory: 120Mi}
                        containers:
                          - resources: {requests: {cpu: "1"}}
                        """, Resources.of("cpu", "1250m", "memory", "120Mi", "pods", 1)),
                Arguments.of("accept every Kubernetes quantity form", """
                        containers:
                          - resources: {requests: {cpu: .5, memory: 1.5G, ephemeral-storage: 1e3, example.com/foo: "2"}}
                        """, Resources.of("cpu", "500m", "memory", "1500M", "ephemeral-storage", 1000,
                        "example.com/foo", 2, "pods", 1)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void effective_requests(String description, String podSpec, Resources expected) {
        String yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + podSpec.indent(2);
        assertEquals(expected, parse(yaml).pods().get(0).requests());
    }
}
