package dev.arbiter.specs;

import io.cucumber.datatable.DataTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reading the setup tables: column names are matched case-insensitively, a column the step does not know is an error
 * (so a typo never passes silently), and an empty cell means the column's default.
 */
final class Tables {
    private Tables() {}

    /** The rows of {@code table} as maps keyed by lower-case column name; checks the header against {@code known}. */
    static List<Map<String, String>> rows(DataTable table, Set<String> required, Set<String> optional) {
        List<String> header = table.row(0).stream().map(h -> h == null ? "" : h.trim().toLowerCase(Locale.ROOT)).toList();
        for (String h : header) {
            if (!required.contains(h) && !optional.contains(h)) {
                throw new IllegalArgumentException("unknown column \"" + h + "\"; columns: " + new TreeSet<>(required)
                        + " (required) and " + new TreeSet<>(optional) + " (optional)");
            }
        }
        for (String r : required) {
            if (!header.contains(r)) throw new IllegalArgumentException("the table needs a \"" + r + "\" column");
        }
        List<Map<String, String>> rows = new ArrayList<>();
        for (List<String> cells : table.cells().subList(1, table.height())) {
            Map<String, String> row = new java.util.HashMap<>();
            for (int i = 0; i < header.size(); i++) {
                String v = cells.get(i);
                if (v != null && !v.isBlank()) row.put(header.get(i), v.trim());
            }
            rows.add(row);
        }
        return rows;
    }

    static int integer(Map<String, String> row, String column, int fallback) {
        String v = row.get(column);
        if (v == null) return fallback;
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("column \"" + column + "\": \"" + v + "\" is not a whole number");
        }
    }

    static Integer optionalInteger(Map<String, String> row, String column) {
        return row.containsKey(column) ? integer(row, column, 0) : null;
    }

    /** yes/no (also true/false). */
    static boolean yesNo(Map<String, String> row, String column, boolean fallback) {
        String v = row.get(column);
        if (v == null) return fallback;
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "yes", "true" -> true;
            case "no", "false" -> false;
            default -> throw new IllegalArgumentException("column \"" + column + "\": say yes or no, not \"" + v + "\"");
        };
    }
}
