package dev.arbiter.live;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Base of the Volcano spec and status classes: fields Arbiter does not model are kept in {@link #extra()} and
 * written back unchanged, so reading and writing a Queue or PodGroup never drops what Volcano (or a newer Volcano)
 * put there.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public abstract class OpenObject {
    private final Map<String, Object> extra = new LinkedHashMap<>();

    @JsonAnyGetter
    public Map<String, Object> extra() {
        return extra;
    }

    @JsonAnySetter
    public void putExtra(String key, Object value) {
        extra.put(key, value);
    }
}
