package dev.arbiter.model;

import java.util.List;
import java.util.Map;

/**
 * A Volcano {@code topology.volcano.sh/v1alpha1} HyperNode: a network domain of tier {@code tier} (1 is the lowest,
 * the closest-coupled, e.g. an NVLink domain or a rack) whose members are nodes or other HyperNodes. Its nodes are the
 * nodes its node members select plus the nodes of its HyperNode members, so HyperNodes form a tree.
 */
public record HyperNodeSpec(String name, int tier, List<Member> members) {
    public HyperNodeSpec {
        members = List.copyOf(members);
    }

    /** What a member selects: nodes, or HyperNodes (by name). */
    public enum MemberType { NODE, HYPER_NODE }

    /**
     * One member selector; exactly one of {@code exactName}, {@code regex} and {@code labels} is set ({@code labels}
     * only for node members, as in Volcano). {@code regex} is matched against the whole name.
     */
    public record Member(MemberType type, String exactName, String regex, LabelSelector labels) {
        /** Whether an object of this member's type, named {@code name} with {@code labels}, is selected. */
        public boolean selects(String name, Map<String, String> objectLabels, java.util.regex.Pattern compiled) {
            if (exactName != null) return exactName.equals(name);
            if (regex != null) return compiled.matcher(name).matches();
            return labels != null && labels.matches(objectLabels);
        }
    }
}
