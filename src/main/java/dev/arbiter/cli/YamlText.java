package dev.arbiter.cli;

import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code -o yaml}: the same document as {@code -o json}, written by SnakeYAML in block style (kubectl's habit), so
 * the two never say different things: the JSON is the one written form, and YAML is its rendering.
 */
final class YamlText {
    private YamlText() {}

    static String of(String json) {
        Object data = new ObjectMapper().readValue(json, Object.class);
        DumperOptions o = new DumperOptions();
        o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        o.setIndicatorIndent(0);
        o.setWidth(120);
        return new Yaml(o).dump(data instanceof Map<?, ?> || data instanceof java.util.List<?> ? data : Map.of("value", data));
    }
}
