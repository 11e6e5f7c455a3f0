package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The manifests under deploy/ are valid Kubernetes objects, and the RBAC grants exactly what the code calls. */
class DeployManifestsTest {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    @Test
    void everyManifestUnderDeployParsesAsKubernetesObjects() throws IOException {
        List<Path> files = manifests();
        assertTrue(files.size() >= 15, "found " + files);
        for (Path f : files) {
            List<HasMetadata> objects = load(f);
            assertFalse(objects.isEmpty(), f + " holds no object");
            for (HasMetadata o : objects) {
                assertNotNull(o.getApiVersion(), f + ": apiVersion");
                assertNotNull(o.getKind(), f + ": kind");
                assertNotNull(o.getMetadata().getName(), f + ": metadata.name");
                if (!(o.getApiVersion().contains("kubeflow.org") || o.getApiVersion().contains("x-k8s.io")
                        || o.getApiVersion().contains("volcano.sh") || o.getApiVersion().contains("monitoring.coreos.com"))) {
                    assertFalse(o instanceof GenericKubernetesResource, f + ": " + o.getKind() + " is not a known kind");
                }
            }
        }
    }

    @Test
    void theCrdsServeVolcanosV1beta1WithTheStatusSubresource() throws IOException {
        for (String name : List.of("queues", "podgroups")) {
            CustomResourceDefinition crd = assertInstanceOf(CustomResourceDefinition.class,
                    load(Path.of("deploy/crds/" + name + ".scheduling.volcano.sh.yaml")).get(0));
            assertEquals("scheduling.volcano.sh", crd.getSpec().getGroup());
            assertEquals("v1beta1", crd.getSpec().getVersions().get(0).getName());
            assertNotNull(crd.getSpec().getVersions().get(0).getSubresources().getStatus(), name + " status subresource");
            assertEquals(name.equals("queues") ? "Cluster" : "Namespaced", crd.getSpec().getScope());
        }
    }

    @Test
    void theHyperNodeCrdServesVolcanosV1alpha1ClusterScoped() throws IOException {
        CustomResourceDefinition crd = assertInstanceOf(CustomResourceDefinition.class,
                load(Path.of("deploy/crds/hypernodes.topology.volcano.sh.yaml")).get(0));
        assertEquals(VolcanoHyperNode.GROUP, crd.getSpec().getGroup());
        assertEquals("v1alpha1", crd.getSpec().getVersions().get(0).getName());
        assertEquals("hypernodes", crd.getSpec().getNames().getPlural());
        assertEquals("Cluster", crd.getSpec().getScope());
    }

    @Test
    void theRbacGrantsExactlyWhatTheCodeCalls() throws IOException {
        ClusterRole cluster = assertInstanceOf(ClusterRole.class, load(Path.of("deploy/arbiter/clusterrole.yaml")).get(0));
        Role lease = assertInstanceOf(Role.class, load(Path.of("deploy/arbiter/role.yaml")).get(0));
        assertEquals(expand(ApiPermissions.CLUSTER), grants(cluster.getRules()));
        assertEquals(expand(ApiPermissions.NAMESPACE), grants(lease.getRules()));
    }

    @Test
    void theDeploymentRunsTwoLeaderElectedNonRootReplicasWithProbesAndLimits() throws IOException {
        Deployment d = assertInstanceOf(Deployment.class, load(Path.of("deploy/arbiter/deployment.yaml")).get(0));
        assertEquals(2, d.getSpec().getReplicas());
        Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertTrue(c.getArgs().contains("run") && c.getArgs().contains("--leader-elect"), c.getArgs().toString());
        assertEquals(Boolean.TRUE, d.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot());
        assertEquals(Boolean.TRUE, c.getSecurityContext().getReadOnlyRootFilesystem());
        assertEquals(Boolean.FALSE, c.getSecurityContext().getAllowPrivilegeEscalation());
        assertEquals("/healthz", c.getLivenessProbe().getHttpGet().getPath());
        assertEquals("/readyz", c.getReadinessProbe().getHttpGet().getPath());
        assertNotNull(c.getResources().getRequests().get("cpu"));
        assertNotNull(c.getResources().getLimits().get("memory"));
        assertEquals("arbiter", d.getSpec().getTemplate().getSpec().getServiceAccountName());
    }

    @Test
    void theDeploymentSchedulesWithThePolicyShippedInTheImage() throws IOException {
        Deployment d = assertInstanceOf(Deployment.class, load(Path.of("deploy/arbiter/deployment.yaml")).get(0));
        Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertTrue(c.getArgs().stream().noneMatch(a -> a.startsWith("--rules")), "the default, $ARBITER_HOME/rules: " + c.getArgs());
        String dockerfile = Files.readString(Path.of("deploy/Dockerfile"));
        assertTrue(dockerfile.contains("COPY rules/ /opt/arbiter/rules/") && dockerfile.contains("ENV ARBITER_HOME=/opt/arbiter"),
                "the image carries rules/ where $ARBITER_HOME/rules points");
    }

    @Test
    void aPackOverlayShipsEveryFileOfItsPackAndThePackExtendsTheShippedPolicy() throws IOException {
        List<Path> overlays;
        try (Stream<Path> s = Files.list(Path.of("deploy/overlays"))) {
            overlays = s.map(p -> p.resolve("kustomization.yaml")).filter(Files::isRegularFile).sorted().toList();
        }
        assertFalse(overlays.isEmpty());
        for (Path overlay : overlays) {
            Map<String, Object> kustomization = JSON.unmarshal(Files.readString(overlay), Map.class);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> generators = (List<Map<String, Object>>) kustomization.get("configMapGenerator");
            assertEquals("arbiter-rules", generators.get(0).get("name"), overlay.toString());
            @SuppressWarnings("unchecked")
            List<String> listed = (List<String>) generators.get(0).get("files");
            Set<Path> folders = new TreeSet<>();
            Set<String> names = new TreeSet<>();
            for (String f : listed) {
                Path file = overlay.getParent().resolve(f).normalize();
                assertTrue(Files.isRegularFile(file), overlay + " lists " + f + ", which does not exist");
                folders.add(file.getParent());
                names.add(file.getFileName().toString());
            }
            assertEquals(1, folders.size(), overlay + ": one pack's files: " + folders);
            Path pack = folders.iterator().next();
            Set<String> packFiles = new TreeSet<>();
            try (Stream<Path> s = Files.list(pack)) {
                s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".drl") || n.endsWith(".yaml")).forEach(packFiles::add);
            }
            assertEquals(packFiles, names, overlay + " must list every rule and settings file of " + pack);
            assertTrue(Files.readString(pack.resolve("pack.yaml")).lines().anyMatch(l -> l.equals("extends: shipped")),
                    pack + "/pack.yaml: in the pod, the base is the image's policy: extends: shipped");
        }
    }

    private static Set<String> expand(List<ApiPermissions.Rule> rules) {
        Set<String> out = new TreeSet<>();
        for (ApiPermissions.Rule r : rules) for (String v : r.verbs()) {
            out.add(r.group() + " " + r.resource() + " " + v + (r.names().isEmpty() ? "" : " " + new TreeSet<>(r.names())));
        }
        return out;
    }

    private static Set<String> grants(List<PolicyRule> rules) {
        Set<String> out = new TreeSet<>();
        for (PolicyRule r : rules) {
            List<String> names = r.getResourceNames() == null ? List.of() : r.getResourceNames();
            for (String g : r.getApiGroups()) for (String res : r.getResources()) for (String v : r.getVerbs()) {
                out.add(g + " " + res + " " + v + (names.isEmpty() ? "" : " " + new TreeSet<>(names)));
            }
        }
        return out;
    }

    private static List<Path> manifests() throws IOException {
        try (Stream<Path> s = Files.walk(Path.of("deploy"))) {
            return s.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                    .filter(p -> !p.getFileName().toString().equals("kustomization.yaml"))
                    // Prometheus rules files and their promtool test are not Kubernetes objects (MonitoringTest).
                    .filter(p -> !p.getFileName().toString().endsWith(".rules.yaml")
                            && !p.getFileName().toString().endsWith(".test.yaml"))
                    // The Helm chart's files are templates and values (HelmChartTest renders them).
                    .filter(p -> !p.startsWith(Path.of("deploy", "helm")))
                    // A policy pack's files are Arbiter's, not Kubernetes objects.
                    .filter(p -> !p.getFileName().toString().equals("pack.yaml") && !p.getFileName().toString().equals("policy.yaml"))
                    .sorted().toList();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<HasMetadata> load(Path file) throws IOException {
        List<HasMetadata> out = new ArrayList<>();
        for (String doc : Files.readString(file).split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) continue;
            try (InputStream in = new java.io.ByteArrayInputStream(doc.getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
                Object o = JSON.unmarshal(in);
                if (o instanceof HasMetadata h) out.add(h);
                else if (o instanceof List<?> l) out.addAll((List<HasMetadata>) l);
                else throw new AssertionError(file + ": not a Kubernetes object: " + o);
            }
        }
        return out;
    }
}
