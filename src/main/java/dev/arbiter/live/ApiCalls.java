package dev.arbiter.live;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfig;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The actuator's HTTP calls: POST, PATCH and GET on API paths, through the client's own HTTP client (same
 * authentication and TLS) but without fabric8's retries, so the {@link Backoff} decides and a refusal comes back at
 * once. fabric8 has no typed call for the pods/binding subresource, and its evict() cannot tell a refusal from a
 * failure precisely enough, so every write goes through here.
 *
 * <p>Each call waits at most the request timeout. Every call in flight is tracked: {@link #cancelInFlight()} ends them
 * all at once (shutdown, lost leadership), and after {@link #close()} new calls return "shutting down" without being
 * sent. Thread-safe: the binder pool, the status writers and the event sender call it concurrently.
 */
final class ApiCalls implements AutoCloseable {
    /** What a GET returned: the outcome and, when it succeeded, the object as JSON maps. */
    record Fetched(ApiOutcome outcome, Map<String, Object> object) {}

    private final KubernetesClient client;
    private final HttpClient http;
    private final KubernetesSerialization json;
    private final String base;
    private final Duration timeout;
    private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private volatile boolean paused;

    ApiCalls(KubernetesClient client, Duration timeout) {
        this.client = client;
        this.http = withoutRetries(client);
        this.json = client.getKubernetesSerialization();
        this.base = client.getMasterUrl().toString().replaceAll("/+$", "");
        this.timeout = timeout;
    }

    KubernetesSerialization json() {
        return json;
    }

    ApiOutcome post(String path, Object body) {
        return postJson(path, json.asJson(body));
    }

    /**
     * A POST that cleans up after this replica (a gang's rollback): sent while paused too, as leadership is lost only
     * before the Lease expires; not once closed.
     */
    ApiOutcome postCleanup(String path, Object body) {
        if (closed) return new ApiOutcome(0, "shutting down");
        HttpRequest request = http.newHttpRequestBuilder().uri(base + path).post("application/json", json.asJson(body))
                .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS).build();
        return sendNow(request, timeout).outcome();
    }

    /** A POST of a body already written as JSON (the binder writes its small bodies itself). */
    ApiOutcome postJson(String path, String body) {
        return send(http.newHttpRequestBuilder().uri(base + path).post("application/json", body)).outcome();
    }

    /** A JSON patch (RFC 6902). Typed fabric8 patches GET the object first, which would need one more permission. */
    ApiOutcome jsonPatch(String path, String patch) {
        return send(http.newHttpRequestBuilder().uri(base + path).method("PATCH", "application/json-patch+json", patch)).outcome();
    }

    /** A strategic merge patch already written as JSON (lists of conditions merge by their {@code type}). */
    ApiOutcome strategicMergePatch(String path, String patch) {
        return send(http.newHttpRequestBuilder().uri(base + path)
                .method("PATCH", "application/strategic-merge-patch+json", patch)).outcome();
    }

    /** A JSON merge patch (RFC 7386). */
    ApiOutcome mergePatch(String path, Object patch) {
        return send(http.newHttpRequestBuilder().uri(base + path)
                .method("PATCH", "application/merge-patch+json", json.asJson(patch))).outcome();
    }

    @SuppressWarnings("unchecked")
    Fetched get(String path) {
        Sent s = send(http.newHttpRequestBuilder().uri(base + path));
        if (!s.outcome().ok() || s.body() == null) return new Fetched(s.outcome(), null);
        try {
            return new Fetched(s.outcome(), json.unmarshal(s.body(), Map.class));
        } catch (RuntimeException notJson) {
            return new Fetched(new ApiOutcome(0, "unreadable answer: " + notJson.getMessage()), null);
        }
    }

    /** What an {@link #exchange} returned: the outcome and the answer's body (null without one). */
    record Answer(ApiOutcome outcome, String body) {}

    /**
     * One request with a time limit of its own, e.g. {@code exchange("PUT", path, json, timeLeft)}: leader election
     * bounds each Lease call by the time left before its renew deadline. A PATCH is a JSON merge patch; {@code
     * jsonBody} null sends no body.
     */
    Answer exchange(String method, String path, String jsonBody, Duration limit) {
        HttpRequest.Builder b = http.newHttpRequestBuilder().uri(base + path);
        String type = method.equals("PATCH") ? "application/merge-patch+json" : "application/json";
        if (jsonBody != null) b = b.method(method, type, jsonBody);
        else if (!method.equals("GET")) b = b.method(method, type, "");
        Sent s = send(b, limit);
        return new Answer(s.outcome(), s.body());
    }

    /** The time limit of one call. */
    Duration timeout() {
        return timeout;
    }

    /** Calls in flight now. */
    int inFlight() {
        return inFlight.size();
    }

    /** Ends every call in flight: its caller gets "cancelled" at once. The client may still send new calls. */
    void cancelInFlight() {
        for (CompletableFuture<?> f : inFlight) f.cancel(true);
    }

    /**
     * Leadership lost: calls in flight are cancelled and new ones are refused ("not leading") until {@link #resume()},
     * so a write that was still retrying, or a rollback decided as the Lease went, never reaches the API.
     */
    void pause() {
        paused = true;
        cancelInFlight();
    }

    void resume() {
        paused = false;
    }

    /** No new calls are sent; those in flight are cancelled. */
    @Override
    public void close() {
        closed = true;
        cancelInFlight();
    }

    /** True once closed (shutdown): no call is sent any more, cleanups included. */
    boolean isShutDown() {
        return closed;
    }

    /** True while calls are refused (closed, or paused after leadership was lost): retrying is pointless. */
    boolean isClosed() {
        return closed || paused;
    }

    private record Sent(ApiOutcome outcome, String body) {}

    private Sent send(HttpRequest.Builder builder) {
        return send(builder, timeout);
    }

    private Sent send(HttpRequest.Builder builder, Duration timeout) {
        if (closed) return new Sent(new ApiOutcome(0, "shutting down"), null);
        if (paused) return new Sent(new ApiOutcome(0, "not leading"), null);
        return sendNow(builder.timeout(timeout.toMillis(), TimeUnit.MILLISECONDS).build(), timeout);
    }

    private Sent sendNow(HttpRequest request, Duration timeout) {
        CompletableFuture<HttpResponse<String>> future = http.sendAsync(request, String.class);
        inFlight.add(future);
        try {
            if (closed) future.cancel(true);
            // The client's own timeout first; this one catches a client that does not enforce it.
            HttpResponse<String> r = future.get(timeout.toMillis() + Math.min(1000, timeout.toMillis() / 4 + 1),
                    TimeUnit.MILLISECONDS);
            return new Sent(new ApiOutcome(r.code(), r.isSuccessful() ? "" : statusMessage(r.body())), r.body());
        } catch (TimeoutException e) {
            future.cancel(true);
            return new Sent(new ApiOutcome(0, "timed out after " + timeout.toMillis() + " ms"), null);
        } catch (CancellationException e) {
            return new Sent(new ApiOutcome(0, "cancelled"), null);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return new Sent(new ApiOutcome(0, String.valueOf(cause.getMessage())), null);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            return new Sent(new ApiOutcome(0, "interrupted"), null);
        } finally {
            inFlight.remove(future);
        }
    }

    private String statusMessage(String body) {
        if (body == null || body.isBlank()) return "";
        try {
            Status s = json.unmarshal(body, Status.class);
            if (s.getMessage() == null) return body;
            // An eviction's 429 names the PodDisruptionBudget only in its causes ("The disruption budget b-pdb needs
            // 2 healthy pods and has 2 currently").
            StringBuilder m = new StringBuilder(s.getMessage());
            if (s.getDetails() != null && s.getDetails().getCauses() != null) {
                for (var c : s.getDetails().getCauses()) {
                    if (c.getMessage() != null && !c.getMessage().isBlank()) m.append(' ').append(c.getMessage());
                }
            }
            return m.toString();
        } catch (RuntimeException notStatus) {
            return body.length() > 200 ? body.substring(0, 200) : body;
        }
    }

    /** The client's HTTP client (same authentication and TLS) without fabric8's own retries of 429 and 5xx. */
    private static HttpClient withoutRetries(KubernetesClient client) {
        RequestConfig noRetries = new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
                .withRequestRetryBackoffLimit(0).build();
        return client.getHttpClient().newBuilder().tag(noRetries).build();
    }

    KubernetesClient client() {
        return client;
    }
}
