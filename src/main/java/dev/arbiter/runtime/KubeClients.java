package dev.arbiter.runtime;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * Connecting to a cluster, with errors a person can act on: {@link #config} reads a kubeconfig (or auto-configures)
 * and refuses a missing or garbage one with {@link BadKubeconfig}; {@link #check} makes one cheap call and turns any
 * failure into {@link ClusterUnavailable} with one line naming the server and the cause, e.g.
 * {@code cannot reach https://127.0.0.1:1: connection refused}; {@link #describe} does that for any exception.
 */
public final class KubeClients {
    private KubeClients() {}

    /** A kubeconfig that cannot be used: bad input (exit 2). The message is one line naming the file. */
    public static final class BadKubeconfig extends RuntimeException {
        public BadKubeconfig(String message) {
            super(message);
        }
    }

    /** The cluster cannot be used now (exit 1): unreachable, TLS, DNS, credentials, permissions. One line. */
    public static final class ClusterUnavailable extends RuntimeException {
        public ClusterUnavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * How soon an informer retries a failed list or watch: fabric8 waits this long, then twice as long each time, up
     * to 32 times this (so 50 ms, 100 ms, ... 1.6 s, 1.6 s, ...), and starts again from this after a success. With
     * fabric8's default (1 s, so up to 32 s), informers refused by a restarting API server waited 16 s and more
     * after it was back (issue 32, fault 4).
     */
    public static final Duration INFORMER_RETRY = Duration.ofMillis(50);

    /**
     * The client configuration from {@code kubeconfig}, or when null auto-configured (KUBECONFIG, ~/.kube/config,
     * else in-cluster), with bounded timeouts: {@code timeout} to connect and per request, no client-side retries of
     * requests (callers decide), and informers retrying promptly and forever ({@link #INFORMER_RETRY}).
     */
    public static Config config(Path kubeconfig, Duration timeout) {
        return config(kubeconfig, null, timeout);
    }

    /**
     * {@link #config(Path, Duration)} on the kubeconfig's context {@code context} instead of its current one (kubectl's
     * {@code --context}); null: the current context.
     */
    public static Config config(Path kubeconfig, String context, Duration timeout) {
        Config config;
        if (kubeconfig == null) {
            config = Config.autoConfigure(context);
            if (context != null && (config.getCurrentContext() == null || !context.equals(config.getCurrentContext().getName()))) {
                throw new BadKubeconfig("--context " + context + ": no such context in the kubeconfig");
            }
        } else {
            String text;
            try {
                text = Files.readString(kubeconfig);
            } catch (NoSuchFileException e) {
                throw new BadKubeconfig(kubeconfig + ": no such file");
            } catch (IOException e) {
                throw new BadKubeconfig(kubeconfig + ": cannot read: " + e.getMessage());
            }
            try {
                config = Config.fromKubeconfig(context, text, kubeconfig.toString());
            } catch (RuntimeException e) {
                throw new BadKubeconfig(kubeconfig + ": not a usable kubeconfig: " + oneLine(rootMessage(e)));
            }
            if (config.getMasterUrl() == null || config.getMasterUrl().isBlank()
                    || (config.getCurrentContext() == null && !text.contains("server:"))) {
                throw new BadKubeconfig(kubeconfig + ": not a usable kubeconfig: it names no current context with a server");
            }
            if (context != null && (config.getCurrentContext() == null || !context.equals(config.getCurrentContext().getName()))) {
                throw new BadKubeconfig(kubeconfig + ": --context " + context + ": no such context");
            }
        }
        int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        config.setConnectionTimeout(millis);
        config.setRequestTimeout(millis);
        config.setRequestRetryBackoffLimit(0);
        config.setWatchReconnectInterval((int) INFORMER_RETRY.toMillis());
        config.setWatchReconnectLimit(-1);
        return config;
    }

    /**
     * Lets the client have {@code requests} requests in flight to the API server at once (fabric8's default is 5 per
     * host, whatever the threads that call it), and at least 64 in all.
     */
    public static void allowInFlight(Config config, int requests) {
        config.setMaxConcurrentRequestsPerHost(requests);
        config.setMaxConcurrentRequests(Math.max(64, requests));
    }

    /** A read-only client for {@code snapshot} and {@code explain --kubeconfig}: 8 s per call, no retries. */
    public static KubernetesClient connect(Path kubeconfig) {
        return connect(kubeconfig, null);
    }

    /** {@link #connect(Path)} on the kubeconfig's context {@code context} (null: its current one). */
    public static KubernetesClient connect(Path kubeconfig, String context) {
        return new KubernetesClientBuilder().withConfig(config(kubeconfig, context, Duration.ofSeconds(8))).build();
    }

    /** One cheap call (list one node); throws {@link ClusterUnavailable} with the cause when it fails. */
    public static void check(KubernetesClient client) {
        try {
            client.nodes().list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
        } catch (RuntimeException e) {
            throw unavailable(e, client.getMasterUrl().toString());
        }
    }

    /** {@code e} as a {@link ClusterUnavailable} naming {@code server}. */
    public static ClusterUnavailable unavailable(Throwable e, String server) {
        return new ClusterUnavailable(describe(e, server), e);
    }

    /**
     * One line saying why {@code server} could not be used, e.g. {@code cannot reach https://10.0.0.1:6443: connection
     * refused}, {@code https://x: TLS handshake failed: ...}, {@code https://x: HTTP 403 Forbidden: ...}.
     */
    public static String describe(Throwable e, String server) {
        String url = server.replaceAll("/+$", "");
        if (e instanceof KubernetesClientException k && k.getCode() > 0) {
            String message = k.getStatus() != null && k.getStatus().getMessage() != null ? k.getStatus().getMessage() : "";
            return url + ": HTTP " + k.getCode() + " " + reason(k.getCode()) + (message.isBlank() ? "" : ": " + oneLine(message))
                    + hint(k.getCode());
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) return "cannot reach " + url + ": connection refused";
            if (t instanceof NoRouteToHostException) return "cannot reach " + url + ": no route to host";
            if (t instanceof UnknownHostException) return "cannot reach " + url + ": unknown host " + host(url);
            if (t instanceof SSLException || t instanceof CertificateException) {
                return url + ": TLS handshake failed: " + oneLine(rootMessage(t))
                        + " (is it an HTTPS server, and does the kubeconfig trust its certificate?)";
            }
            if (t instanceof TimeoutException || String.valueOf(t.getMessage()).contains("timeout period")
                    || t.getClass().getSimpleName().contains("Timeout")) {
                return "cannot reach " + url + ": timed out (no answer)";
            }
        }
        return "cannot use " + url + ": " + oneLine(rootMessage(e));
    }

    private static String reason(int code) {
        return switch (code) {
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 503 -> "Service Unavailable";
            default -> "";
        };
    }

    private static String hint(int code) {
        return switch (code) {
            case 401 -> " (the kubeconfig's credentials were not accepted)";
            case 403 -> " (the credentials lack a permission; see deploy/arbiter/clusterrole.yaml)";
            default -> "";
        };
    }

    private static String host(String url) {
        return url.replaceAll("^[a-z]+://", "").replaceAll("[:/].*$", "");
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = root.getMessage();
        return m == null ? root.getClass().getSimpleName() : m;
    }

    private static String oneLine(String s) {
        String t = s.replaceAll("\\s+", " ").trim();
        return t.length() > 240 ? t.substring(0, 240) + "..." : t;
    }
}
