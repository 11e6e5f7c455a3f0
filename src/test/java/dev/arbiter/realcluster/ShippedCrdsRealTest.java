package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shipped CRDs as the real API server applies them: a Queue written as Volcano's users write it gets Volcano's defaults. */
class ShippedCrdsRealTest extends RealClusterTest {
    static final ResourceDefinitionContext QUEUES = new ResourceDefinitionContext.Builder()
            .withGroup("scheduling.volcano.sh").withVersion("v1beta1").withKind("Queue").withPlural("queues")
            .withNamespaced(false).build();

    @Test
    void aQueueWithAnEmptySpecGetsVolcanosDefaults() {
        apply("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: bare}
                spec: {}
                """);
        GenericKubernetesResource q = admin.genericKubernetesResources(QUEUES).withName("bare").get();
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) q.getAdditionalProperties().get("spec");
        assertEquals(1, ((Number) spec.get("weight")).intValue());
        assertEquals(true, spec.get("reclaimable"));
        assertEquals("traverse", spec.get("dequeueStrategy"));
    }
}
