package dev.arbiter.live;

import static dev.arbiter.live.LiveFixture.await;
import static dev.arbiter.live.LiveFixture.node;
import static dev.arbiter.live.LiveFixture.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.arbiter.model.PodSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.concurrent.ConcurrentHashMap;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The API server goes away and comes back (same state, same port): every watch drops, the informers re-list and
 * re-watch, and the cache converges on what the server holds, including changes made around the outage.
 *
 * <p>The mock server cannot be restarted, so this test builds two on one CRUD state: the second takes the first's
 * port once it is shut down.
 *
 * <p>On a stand-in, for what only it can script and for speed; the real-server counterpart is {@code
 * WatchExpiryRealTest}, and the two agree: pods created while the watch was gone are seen and bound once each.
 */
class WatchResyncTest {
    private final Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
    private final KubernetesMixedDispatcher state = new KubernetesMixedDispatcher(expectations);
    private KubernetesMockServer first;
    private KubernetesMockServer second;
    private KubernetesClient client;
    private LiveFixture fx;

    @AfterEach
    void tearDown() throws InterruptedException {
        if (fx != null) fx.close();
        if (client != null) client.close();
        if (second != null) {
            // The mock cannot always close a server that took over another's watches; do not let that fail the test.
            Thread stop = new Thread(second::destroy, "mock-server-stop");
            stop.setDaemon(true);
            stop.start();
            stop.join(2000);
        }
    }

    @Test
    void aDroppedWatchIsReListedAndTheCacheCatchesUp() throws Exception {
        first = server();
        first.init(InetAddress.getLoopbackAddress(), 0);
        client = first.createClient();
        fx = new LiveFixture(first, client);
        fx.create(node("node-1", 8));
        fx.create(pod("team", "before", "arbiter", 1, null));
        fx.create(pod("team", "gone", "arbiter", 1, null));
        LiveScheduler s = fx.manualScheduler();
        await("both in cache", () -> podsInCache(s).equals(Set.of("team/before", "team/gone")));
        client.pods().inNamespace("team").withName("gone").delete();
        await("deletion seen", () -> podsInCache(s).equals(Set.of("team/before")));
        await("watching", () -> s.cache().isWatching());

        int port = first.getPort();
        first.destroy();
        await("watches dropped", () -> !s.cache().isWatching());
        await("port closed", () -> !accepts(port));
        // While no server answers (another API server replica, say, takes the writes): one pod goes, one comes.
        PodSpec after = pod("team", "after", "arbiter", 1, null);
        fx.expectSubresources("team", "after");
        write("POST", "/api/v1/namespaces/team/pods", client.getKubernetesSerialization().asJson(LiveFixture.podObject(after)));
        write("DELETE", "/api/v1/namespaces/team/pods/before", "");
        second = new KubernetesMockServer(new Context(), new MockWebServer(), expectations, new WatchCacheLost(state), false);
        second.init(InetAddress.getLoopbackAddress(), port);

        await("cache re-listed", () -> podsInCache(s).equals(Set.of("team/after")));
        await("watching again", () -> s.cache().isWatching());
        assertEquals(1, s.loop().runOnce().report().bound());
        await("after bound", () -> fx.nodeOf("team/after") != null);
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    /** A write straight into the shared state, bypassing HTTP (no server is up). */
    private void write(String method, String path, String body) {
        RecordedRequest request = new RecordedRequest("HTTP/1.1", HttpMethod.valueOf(method), path,
                new Headers.Builder().add("Content-Type", "application/json").build(),
                new Buffer().writeUtf8(body));
        int code = state.dispatch(request).code();
        if (code >= 300) throw new AssertionError(method + " " + path + " answered " + code);
    }

    private KubernetesMockServer server() {
        return new KubernetesMockServer(new Context(), new MockWebServer(), expectations, state, false);
    }

    /**
     * The restarted server cannot replay what happened since an informer's last resourceVersion (the CRUD mock never
     * replays deletions), so it answers 410 Gone to every watch of a resource that has not been listed from it yet,
     * as a real API server does when a resourceVersion is too old (an ERROR
     * event with a 410 Status). The informer must re-list.
     */
    private static final class WatchCacheLost extends Dispatcher {
        private final Dispatcher state;
        private final Set<String> listed = ConcurrentHashMap.newKeySet();

        WatchCacheLost(Dispatcher state) {
            this.state = state;
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            String path = request.getPath();
            int query = path.indexOf('?');
            String resource = query < 0 ? path : path.substring(0, query);
            if ("GET".equals(request.getMethod())) {
                if (!path.contains("watch=true")) listed.add(resource);
                else if (!listed.contains(resource)) return tooOld();
            }
            return state.dispatch(request);
        }

        /** The watch opens, then its only event is an ERROR with a 410 Status, and it closes. */
        private static MockResponse tooOld() {
            return new MockResponse().withWebSocketUpgrade(new WebSocketListener() {
                @Override
                public void onOpen(WebSocket ws, Response response) {
                    ws.send("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                            + "\"status\":\"Failure\",\"reason\":\"Expired\",\"code\":410,"
                            + "\"message\":\"too old resource version\"}}");
                    ws.close(1000, "");
                }
            });
        }
    }

    private static Set<String> podsInCache(LiveScheduler s) {
        return s.cache().snapshot().pods().stream().map(PodSpec::key).collect(Collectors.toSet());
    }
}
