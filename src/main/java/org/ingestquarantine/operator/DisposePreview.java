package org.ingestquarantine.operator;

import java.util.SortedMap;

/**
 * What a dispose would move now (its dry run), and the confirmation its action must bring back.
 *
 * @param selection exactly which records
 * @param records open records it holds now
 * @param recordsBySource those records per source, sorted by source
 * @param confirmation the token binding the selection and {@code records} ({@link OperatorActions})
 */
public record DisposePreview(CohortSelection selection, long records, SortedMap<String, Long> recordsBySource,
                             String confirmation) {
}
