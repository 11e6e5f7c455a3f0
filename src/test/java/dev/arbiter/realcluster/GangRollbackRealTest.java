package dev.arbiter.realcluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A gang whose binding the real API server refuses part-way (an admission webhook refuses one member's binding, 422):
 * the members bound meanwhile are evicted at once, in the cycle that bound them, so the gang holds nothing below its
 * minMember; once the binding is allowed and its controller has created the evicted members again, it binds whole.
 */
class GangRollbackRealTest extends RealClusterTest {
    @Test
    void aBindingRefusedPartWayRollsTheGangBackAtOnceAndItBindsWholeLater() throws Exception {
        String ns = "rollback";
        cluster.namespace(ns);
        for (int i = 0; i < 4; i++) node(ns + "-" + i, 16, 8);
        apply(queue("q-" + ns, 1));
        BindingWebhook hook = BindingWebhook.in(cluster, ns, Duration.ofMillis(100));
        closeAfter(hook);
        hook.refuse("g-3");
        List<String> docs = new ArrayList<>(List.of(podGroup(ns, "g", "q-" + ns, 4)));
        for (int m = 0; m < 4; m++) docs.add(pod(ns, "g-" + m, "g", "arbiter", 8, null)); // one member per node
        runningScheduler(config("arbiter-test").withPeriod(Duration.ofMillis(500)));
        apply(docs(docs));

        await("the refused binding", () -> requests("binding", "g-3").stream().anyMatch(r -> r.code() == 422));
        await("no member left bound", () -> bound(ns) == 0 && !requests("eviction", null).isEmpty());
        List<AuditLog.Request> all = arbiterRequests();
        List<String> boundMembers = all.stream().filter(r -> r.on("pods", "binding") && r.code() == 201)
                .map(AuditLog.Request::name).distinct().toList();
        for (String member : boundMembers) {
            assertTrue(all.stream().anyMatch(r -> r.on("pods", "eviction") && r.name().equals(member) && r.code() < 300),
                    () -> member + " was bound and never evicted: " + all);
        }
        // At once: the first eviction comes before the refused member's binding is tried again (a gang left bound
        // would have it tried in the next cycles, and evicted only later as stranded).
        int firstEviction = indexOf(all, r -> r.on("pods", "eviction"));
        int secondTry = nth(all, r -> r.on("pods", "binding") && "g-3".equals(r.name()), 2);
        assertTrue(secondTry < 0 || firstEviction < secondTry,
                () -> "evicted at request " + firstEviction + ", the refused binding tried again at " + secondTry + ": " + all);

        // The binding is allowed again; the gang's controller creates the evicted members again.
        hook.allow("g-3");
        for (String member : boundMembers) {
            await(member + " gone", () -> admin.pods().inNamespace(ns).withName(member).get() == null);
            apply(pod(ns, member, "g", "arbiter", 8, null));
        }
        await("the gang bound whole", () -> bound(ns) == 4, Duration.ofSeconds(60));
    }

    private List<AuditLog.Request> requests(String subresource, String name) {
        return arbiterRequests().stream().filter(r -> r.on("pods", subresource) && (name == null || name.equals(r.name()))).toList();
    }

    private static int indexOf(List<AuditLog.Request> rs, java.util.function.Predicate<AuditLog.Request> p) {
        return nth(rs, p, 1);
    }

    private static int nth(List<AuditLog.Request> rs, java.util.function.Predicate<AuditLog.Request> p, int n) {
        int seen = 0;
        for (int i = 0; i < rs.size(); i++) if (p.test(rs.get(i)) && ++seen == n) return i;
        return -1;
    }
}
