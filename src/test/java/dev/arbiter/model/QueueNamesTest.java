package dev.arbiter.model;

import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A queue's name is one string wherever it is read: the queue's own, its children's parent, its PodGroups' queue. */
class QueueNamesTest {
    @Test
    void aQueueAndItsPodGroupsShareOneNameString() {
        // Each manifest parsed gives its own copy of the text.
        QueueSpec q = new QueueSpec(new String("team-a"), 1, 0, Caps.UNLIMITED, Resources.NONE, true, "Open",
                new String("org"), 0);
        QueueSpec child = new QueueSpec(new String("team-a-1"), 1, 0, Caps.UNLIMITED, Resources.NONE, true, "Open",
                new String("team-a"), 0);
        PodGroupSpec pg = new PodGroupSpec("ns", "job", new String("team-a"), 1, Map.of(), null, null, "Pending", 0, 0);
        assertSame(q.name(), pg.queue());
        assertSame(q.name(), child.parent());
    }
}
