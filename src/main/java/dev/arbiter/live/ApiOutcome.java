package dev.arbiter.live;

/**
 * The HTTP status of one write, with the server's message. {@code code} 0 means no response (connection error or
 * timeout). Retryable: no response, 409 Conflict, 429 Too Many Requests and 5xx, as client-go retries them.
 */
public record ApiOutcome(int code, String message) {
    public boolean ok() {
        return code >= 200 && code < 300;
    }

    public boolean notFound() {
        return code == 404;
    }

    /** 429: for an eviction, a PodDisruptionBudget refused it. */
    public boolean tooManyRequests() {
        return code == 429;
    }

    public boolean retryable() {
        return code == 0 || code == 409 || code == 429 || code >= 500;
    }

    @Override
    public String toString() {
        return (code == 0 ? "no response" : "HTTP " + code) + (message == null || message.isBlank() ? "" : ": " + message);
    }
}
