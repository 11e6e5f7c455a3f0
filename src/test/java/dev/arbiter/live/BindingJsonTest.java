package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The binder writes its Binding bodies itself: they must read back as the Binding fabric8 would have sent. */
class BindingJsonTest {
    private final KubernetesSerialization json = new KubernetesSerialization();

    @Test
    void aBindingBodyIsTheBindingFabric8WouldSend() {
        assertSame("team-a", "train-0", "node-00017");
    }

    @Test
    void namesAreEscaped() {
        // No valid Kubernetes name needs escaping, but a body must stay JSON whatever it is given.
        assertSame("ns\"x", "pod\\y", "node\n\t\u0001z");
    }

    @SuppressWarnings("unchecked")
    private void assertSame(String ns, String name, String node) {
        Binding expected = new BindingBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withNewTarget().withApiVersion("v1").withKind("Node").withName(node).endTarget().build();
        String written = Binder.bindingJson(ns, name, node);
        assertEquals(json.unmarshal(json.asJson(expected), Map.class), json.unmarshal(written, Map.class), written);
        Binding read = json.unmarshal(written, Binding.class);
        assertEquals(expected, read);
    }
}
