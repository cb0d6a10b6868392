package io.ttlstreams.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Result rows, each an ordered map of column to value: printed as a fixed-width table (selected columns) and
 * written whole as CSV, so that the table and the files can never disagree.
 */
final class Table {

    private Table() {}

    /** Prints {@code columns} of {@code rows}, right-aligned under their names. */
    static void print(PrintStream out, List<Map<String, Object>> rows, List<String> columns) {
        int[] widths = new int[columns.size()];
        List<String[]> cells = new ArrayList<>();
        for (int c = 0; c < columns.size(); c++) {
            widths[c] = columns.get(c).length();
        }
        for (Map<String, Object> row : rows) {
            String[] line = new String[columns.size()];
            for (int c = 0; c < columns.size(); c++) {
                line[c] = text(row.get(columns.get(c)));
                widths[c] = Math.max(widths[c], line[c].length());
            }
            cells.add(line);
        }
        out.println(line(columns.toArray(String[]::new), widths));
        cells.forEach(line -> out.println(line(line, widths)));
    }

    /** The rows as CSV, with {@code constant} columns (the environment) appended to each. */
    static String csv(List<Map<String, Object>> rows, Map<String, Object> constant) {
        StringBuilder csv = new StringBuilder();
        List<String> header = new ArrayList<>(rows.get(0).keySet());
        header.addAll(constant.keySet());
        csv.append(String.join(",", header)).append('\n');
        for (Map<String, Object> row : rows) {
            List<String> line = new ArrayList<>();
            row.values().forEach(v -> line.add(csvCell(v)));
            constant.values().forEach(v -> line.add(csvCell(v)));
            csv.append(String.join(",", line)).append('\n');
        }
        return csv.toString();
    }

    /** A number as the tables show it: three significant decimals for small values, fewer for large ones. */
    static String text(Object value) {
        if (value == null) {
            return "-";
        }
        if (value instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) {
                return "-";
            }
            double abs = Math.abs(d);
            String format = abs >= 1000 ? "%.0f" : abs >= 100 ? "%.1f" : abs >= 10 ? "%.2f" : "%.3f";
            return String.format(Locale.ROOT, format, d);
        }
        return value.toString();
    }

    private static String line(String[] cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            if (c > 0) {
                line.append("  ");
            }
            line.append(" ".repeat(widths[c] - cells[c].length())).append(cells[c]);
        }
        return line.toString();
    }

    private static String csvCell(Object value) {
        if (value == null || value instanceof Double d && d.isNaN()) {
            return "";
        }
        String text = value instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : value.toString();
        return text.contains(",") || text.contains("\"") ? '"' + text.replace("\"", "\"\"") + '"' : text;
    }
}
