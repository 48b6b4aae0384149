package org.ingestquarantine.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table for a terminal: a header line, one line per row, columns padded to their widest cell,
 * numbers right-aligned. Cells are made one line and control characters replaced, so a value cannot break
 * the layout.
 */
final class Table {

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... header) {
        this.header = List.of(header);
    }

    Table row(Object... cells) {
        List<String> row = new ArrayList<>(cells.length);
        for (Object cell : cells) {
            row.add(cell == null ? "-" : cell.toString().replaceAll("\\p{Cntrl}", " "));
        }
        rows.add(row);
        return this;
    }

    @Override
    public String toString() {
        int[] widths = new int[header.size()];
        boolean[] numeric = new boolean[header.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = Math.max(1, header.get(i).length());
            numeric[i] = !rows.isEmpty();
        }
        for (List<String> row : rows) {
            for (int i = 0; i < widths.length && i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
                numeric[i] &= row.get(i).matches("-|[-+]?[0-9][0-9.,]*%?");
            }
        }
        StringBuilder b = new StringBuilder();
        line(b, header, widths, new boolean[widths.length]);
        for (List<String> row : rows) {
            line(b, row, widths, numeric);
        }
        return b.toString().stripTrailing();
    }

    private static void line(StringBuilder b, List<String> cells, int[] widths, boolean[] numeric) {
        StringBuilder l = new StringBuilder();
        for (int i = 0; i < widths.length; i++) {
            String cell = i < cells.size() ? cells.get(i) : "";
            String format = numeric[i] ? "%" + widths[i] + "s" : "%-" + widths[i] + "s";
            l.append(String.format(format, cell)).append(i < widths.length - 1 ? "  " : "");
        }
        b.append(l.toString().stripTrailing()).append(System.lineSeparator());
    }
}
