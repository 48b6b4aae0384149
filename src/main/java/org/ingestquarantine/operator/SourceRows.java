package org.ingestquarantine.operator;

import java.util.HashMap;
import java.util.Map;
import java.util.SortedSet;
import java.util.function.UnaryOperator;
import org.ingestquarantine.metrics.SourceTags;
import org.ingestquarantine.pipeline.RecordKey;

/**
 * Which sources have a row of their own in a per-source answer (coverage, stats), so that the answer is bounded by
 * configuration: every source with a metric tag of its own ({@link SourceTags}: an operator named it, configured,
 * a total or a root an {@code ingest} recorded, or {@value RecordKey#INVALID_MESSAGES_SOURCE}); of the others (an older version recorded rows under names producers
 * chose; {@code sources purge-unconfigured} re-keys them), the first {@code unnamedRows} by name; the rest share
 * one {@value RecordKey#OTHER_SOURCES} row, their figures summed.
 */
final class SourceRows {

    private final SourceTags named;
    private final int unnamedRows;

    /**
     * @param named the tags of the sources an operator named
     * @param unnamedRows rows the other sources may have, 0 or more (property {@code operator.unnamed-source-rows})
     */
    SourceRows(SourceTags named, int unnamedRows) {
        if (unnamedRows < 0) {
            throw new IllegalArgumentException("operator.unnamed-source-rows must be 0 or more, was " + unnamedRows);
        }
        this.named = named;
        this.unnamedRows = unnamedRows;
    }

    /**
     * @param present the sources with figures, sorted
     * @return source → the name of its row: its own, or {@value RecordKey#OTHER_SOURCES}
     */
    UnaryOperator<String> over(SortedSet<String> present) {
        Map<String, String> rows = new HashMap<>();
        int unnamed = 0;
        for (String source : present) {
            boolean own = !RecordKey.OTHER_SOURCES.equals(named.tag(source)) || unnamed++ < unnamedRows;
            rows.put(source, own ? source : RecordKey.OTHER_SOURCES);
        }
        return source -> rows.getOrDefault(source, source);
    }
}
