package dev.arbiter.model;

/**
 * The API server refused to evict a running pod, and the pod is not to be chosen as a victim again for a while: a
 * PodDisruptionBudget answered 429, or the eviction failed for good. {@code code} is the HTTP status (0: no answer),
 * {@code message} the server's words, {@code backoffSeconds} how long the pod is passed over since the refusal (it
 * doubles with each refusal in a row). The live side keeps these, one per pod, and puts in the snapshot only those
 * whose backoff has not ended; the victim search treats such a pod as protected and looks for other victims.
 */
public record EvictionRefusal(int code, String message, long backoffSeconds) {
    public EvictionRefusal {
        message = message == null ? "" : message;
    }
}
