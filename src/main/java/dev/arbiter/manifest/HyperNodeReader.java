package dev.arbiter.manifest;

import dev.arbiter.model.HyperNodeSpec;
import dev.arbiter.model.HyperNodeSpec.Member;
import dev.arbiter.model.HyperNodeSpec.MemberType;
import dev.arbiter.model.LabelSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.PatternSyntaxException;

/**
 * Reads a {@code topology.volcano.sh/v1alpha1} HyperNode: {@code spec.tier} (a positive integer; Volcano writes it as
 * a number or a numeric string) and {@code spec.members}, each {@code {type: Node|HyperNode, selector: {...}}} with
 * exactly one of {@code exactMatch: {name}}, {@code regexMatch: {pattern}} or {@code labelMatch: {matchLabels,
 * matchExpressions}} (node members only). The older selector field {@code type: Exact|Regex} is accepted and ignored.
 */
final class HyperNodeReader {
    private HyperNodeReader() {}

    static HyperNodeSpec read(Field hyperNode, Metadata meta) {
        Field spec = hyperNode.get("spec");
        Field tierField = spec.get("tier");
        String tierText = tierField.requiredString();
        int tier;
        try {
            tier = Integer.parseInt(tierText.trim());
        } catch (NumberFormatException e) {
            throw tierField.error("must be a positive integer, got " + tierText);
        }
        if (tier < 1) throw tierField.error("must be a positive integer, got " + tierText);
        List<Member> members = new ArrayList<>();
        for (Field m : spec.get("members").items()) members.add(member(m));
        return new HyperNodeSpec(meta.name(), tier, members);
    }

    private static Member member(Field m) {
        Field typeField = m.get("type");
        String typeText = typeField.requiredString();
        MemberType type = switch (typeText) {
            case "Node" -> MemberType.NODE;
            case "HyperNode" -> MemberType.HYPER_NODE;
            default -> throw typeField.error("must be Node or HyperNode, got " + typeText);
        };
        Field selector = m.get("selector");
        Field exact = selector.get("exactMatch");
        Field regex = selector.get("regexMatch");
        Field labels = selector.get("labelMatch");
        int stated = (exact.isPresent() ? 1 : 0) + (regex.isPresent() ? 1 : 0) + (labels.isPresent() ? 1 : 0);
        if (stated != 1) {
            throw selector.error("must state exactly one of exactMatch, regexMatch and labelMatch, got " + stated);
        }
        if (exact.isPresent()) return new Member(type, exact.get("name").requiredString(), null, null);
        if (regex.isPresent()) {
            Field pattern = regex.get("pattern");
            String text = pattern.requiredString();
            try {
                java.util.regex.Pattern.compile(text);
            } catch (PatternSyntaxException e) {
                throw pattern.error("is not a valid regular expression: " + e.getDescription());
            }
            return new Member(type, null, text, null);
        }
        if (type == MemberType.HYPER_NODE) throw labels.error("selects nodes only; a HyperNode member is named by exactMatch or regexMatch");
        LabelSelector selected = PlacementReader.selector(labels);
        return new Member(type, null, null, selected);
    }
}
