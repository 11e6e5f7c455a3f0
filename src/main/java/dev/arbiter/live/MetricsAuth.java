package dev.arbiter.live;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may read {@code /metrics} on the secure endpoint, asked of the API server as kube-rbac-proxy and
 * controller-runtime's filters ask it: the request's bearer token is reviewed ({@code TokenReview}), and the user it
 * names must be allowed {@code get} on the non-resource URL {@code /metrics} ({@code SubjectAccessReview}), which a
 * ClusterRole grants (deploy/arbiter/metrics-reader.yaml). Answers are kept {@link #TTL} per token (at most
 * {@link #MAX_KEPT}), so a scrape every few seconds costs the API server two calls a minute; an API server that does
 * not answer is a 503, never an open door.
 */
public final class MetricsAuth {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsAuth.class);
    static final Duration TTL = Duration.ofSeconds(30);
    static final int MAX_KEPT = 1024;

    private final KubernetesClient client;
    private final Map<String, Kept> kept = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Kept> e) {
            return size() > MAX_KEPT;
        }
    };

    private record Kept(int code, String why, long until) {}

    public MetricsAuth(KubernetesClient client) {
        this.client = client;
    }

    /** The answer for a request whose Authorization header is {@code header}: 200, 401 or 403 (503: no answer). */
    Verdict check(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7) || header.length() <= 7) {
            return new Verdict(401, "a bearer token is needed\n");
        }
        String token = header.substring(7).trim();
        long now = System.nanoTime();
        synchronized (kept) {
            Kept k = kept.get(token);
            if (k != null && now - k.until < 0) return new Verdict(k.code, k.why);
        }
        Verdict v;
        try {
            v = review(token);
        } catch (RuntimeException e) {
            LOG.warn("metrics: cannot review a token with the API server: {}", e.toString());
            return new Verdict(503, "the API server did not answer the token review\n");
        }
        synchronized (kept) {
            kept.put(token, new Kept(v.code(), v.body(), now + TTL.toNanos()));
        }
        return v;
    }

    private Verdict review(String token) {
        TokenReview tr = client.resource(new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build()).create();
        if (tr.getStatus() == null || !Boolean.TRUE.equals(tr.getStatus().getAuthenticated())) {
            return new Verdict(401, "the token is not valid\n");
        }
        var user = tr.getStatus().getUser();
        Map<String, java.util.List<String>> extra = user.getExtra() == null ? Map.of() : user.getExtra();
        SubjectAccessReview sar = client.resource(new SubjectAccessReviewBuilder().withNewSpec()
                .withUser(user.getUsername()).withGroups(user.getGroups()).withUid(user.getUid()).withExtra(extra)
                .withNewNonResourceAttributes().withPath("/metrics").withVerb("get").endNonResourceAttributes()
                .endSpec().build()).create();
        if (sar.getStatus() != null && Boolean.TRUE.equals(sar.getStatus().getAllowed())) return new Verdict(200, null);
        return new Verdict(403, user.getUsername() + " may not get /metrics\n");
    }

    record Verdict(int code, String body) {}
}
