package dev.arbiter.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The default table fits 120 columns without losing any of a long reason (issue 38, item 6). */
class TableReportTest {
    @Test
    void aLongReasonWrapsAtSpacesWithinItsColumnAndNothingIsLost() {
        String reason = "gang of 4 needs 4 tasks, 2 placeable: node-1 lacks 8 nvidia.com/gpu, node-2 is cordoned, and the queue"
                + " tenanta is at its capability of 16 nvidia.com/gpu";
        String table = TableReport.fitted(List.of(new String[] {"PODGROUP", "STATUS", "REASON"},
                new String[] {"a01/qwen2-72b-unified-pg", "Pending", reason}));
        List<String> lines = table.lines().toList();
        assertTrue(lines.size() > 2, table);
        assertTrue(lines.stream().allMatch(l -> l.length() <= TableReport.WIDTH), table);
        int column = lines.get(0).indexOf("REASON");
        StringBuilder read = new StringBuilder();
        for (String l : lines.subList(1, lines.size())) {
            assertTrue(l.substring(0, column).isBlank() || l.startsWith("a01/"), "continuations stay in the column: " + l);
            read.append(read.isEmpty() ? "" : " ").append(l.substring(column));
        }
        assertEquals(reason, read.toString());
    }

    @Test
    void aShortReasonStaysOnItsLine() {
        String table = TableReport.fitted(List.of(new String[] {"QUEUE", "REASON"}, new String[] {"tenanta", "closed"}));
        assertEquals("QUEUE     REASON\ntenanta   closed\n", table);
    }
}
