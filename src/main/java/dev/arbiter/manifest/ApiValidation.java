package dev.arbiter.manifest;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The checks the Kubernetes API server makes on the fields Arbiter reads, so the simulator refuses what a cluster
 * would refuse (the rules of {@code k8s.io/apimachinery/pkg/util/validation} and of the core API's validation):
 * object names are RFC 1123 subdomains (at most 253 characters), namespaces RFC 1123 labels (at most 63), label and
 * annotation keys qualified names, label values at most 63 characters; a pod's phase is one of the five the API
 * defines; a container's request is at most its limit, and for an extended resource (a name with a domain outside
 * {@code kubernetes.io}, such as {@code nvidia.com/gpu}, which cannot be overcommitted) a whole number equal to its
 * limit. A violation is a {@link ManifestException} naming the field; the messages follow the API server's.
 */
final class ApiValidation {
    static final int SUBDOMAIN_MAX = 253;
    static final int LABEL_MAX = 63;
    private static final Pattern SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    static final Set<String> POD_PHASES = Set.of("Pending", "Running", "Succeeded", "Failed", "Unknown");

    private ApiValidation() {}

    /** {@code metadata.name} of an object: an RFC 1123 subdomain. */
    static void objectName(Field name) {
        String s = name.string();
        if (s == null) return;
        if (s.length() > SUBDOMAIN_MAX) throw name.error(tooLong(s, SUBDOMAIN_MAX));
        if (!SUBDOMAIN.matcher(s).matches()) {
            throw name.error("must be a lowercase RFC 1123 subdomain (a-z, 0-9, '-' and '.', starting and ending with a letter"
                    + " or digit), got " + name.shown());
        }
    }

    /** {@code metadata.namespace}: an RFC 1123 label. */
    static void namespace(Field namespace) {
        String s = namespace.string();
        if (s == null) return;
        if (s.length() > LABEL_MAX) throw namespace.error(tooLong(s, LABEL_MAX));
        if (!DNS_LABEL.matcher(s).matches()) {
            throw namespace.error("must be a lowercase RFC 1123 label (a-z, 0-9 and '-', starting and ending with a letter"
                    + " or digit), got " + namespace.shown());
        }
    }

    /** Label keys and values ({@code metadata.labels}). */
    static void labels(Field labels) {
        for (Map.Entry<String, Field> e : labels.entries().entrySet()) {
            qualifiedKey(e.getValue(), e.getKey());
            String v = e.getValue().string();
            if (v == null) continue;
            if (v.length() > LABEL_MAX) throw e.getValue().error(tooLong(v, LABEL_MAX));
            if (!QUALIFIED_NAME.matcher(v).matches()) {
                throw e.getValue().error("a label value must be empty or consist of letters, digits, '-', '_' or '.',"
                        + " starting and ending with a letter or digit, got " + e.getValue().shown());
            }
        }
    }

    /** Annotation keys ({@code metadata.annotations}); values are free text. */
    static void annotations(Field annotations) {
        for (Map.Entry<String, Field> e : annotations.entries().entrySet()) qualifiedKey(e.getValue(), e.getKey());
    }

    /** A key such as {@code app} or {@code scheduling.k8s.io/group-name}: an optional subdomain prefix, then a name. */
    static void qualifiedKey(Field at, String key) {
        int slash = key.indexOf('/');
        String prefix = slash < 0 ? null : key.substring(0, slash), name = slash < 0 ? key : key.substring(slash + 1);
        boolean ok = name.length() <= LABEL_MAX && QUALIFIED_NAME.matcher(name).matches()
                && (prefix == null || (prefix.length() <= SUBDOMAIN_MAX && SUBDOMAIN.matcher(prefix).matches()));
        if (!ok) {
            throw at.error("is not a valid key: a name of at most 63 letters, digits, '-', '_' or '.', optionally after a"
                    + " DNS subdomain prefix and '/' (e.g. example.com/my-key), got \"" + shorten(key) + "\"");
        }
    }

    /** {@code status.phase} of a pod, when given. */
    static void podPhase(Field phase) {
        String s = phase.string();
        if (s != null && !POD_PHASES.contains(s)) {
            throw phase.error("must be Pending, Running, Succeeded, Failed or Unknown, got " + phase.shown());
        }
    }

    /**
     * A container's {@code resources}: each request at most its limit; an extended resource a whole number, and its
     * request equal to its limit. Returns the extended resources requested without a limit — which the API server
     * refuses ("Limit must be set for non overcommitable resources") but the simulator reads as if the limit were
     * the request, with a notice.
     */
    static List<String> resources(Field resources) {
        Map<String, Field> requests = resources.get("requests").entries(), limits = resources.get("limits").entries();
        for (Map.Entry<String, Field> e : limits.entrySet()) {
            if (isExtended(e.getKey())) wholeNumber(e.getValue(), e.getKey());
        }
        List<String> withoutLimit = new java.util.ArrayList<>();
        for (Map.Entry<String, Field> e : requests.entrySet()) {
            String name = e.getKey();
            Field request = e.getValue(), limit = limits.get(name);
            boolean extended = isExtended(name);
            if (extended) wholeNumber(request, name);
            if (limit == null) {
                if (extended) withoutLimit.add(name);
                continue;
            }
            long r = request.quantity(name), l = limit.quantity(name);
            if (extended && r != l) {
                throw request.error("must be equal to " + name + " limit of " + limit.string() + ", got " + request.shown());
            }
            if (r > l) {
                throw request.error("must be less than or equal to " + name + " limit of " + limit.string() + ", got "
                        + request.shown());
            }
        }
        return withoutLimit;
    }

    /** An extended resource: a domain-prefixed name outside {@code kubernetes.io} (Kubernetes cannot overcommit it). */
    static boolean isExtended(String resource) {
        return resource.contains("/") && !resource.contains("kubernetes.io/");
    }

    private static void wholeNumber(Field quantity, String name) {
        if (quantity.quantity(name) % 1000 != 0) throw quantity.error("must be an integer, got " + quantity.shown());
    }

    private static String tooLong(String s, int max) {
        return "must be no more than " + max + " characters, got " + s.length() + " (\"" + shorten(s) + "\")";
    }

    private static String shorten(String s) {
        return s.length() > 40 ? s.substring(0, 37) + "..." : s;
    }
}
