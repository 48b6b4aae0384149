package org.ingestquarantine.operator;

import java.util.List;

/**
 * Answer to {@code stats}.
 *
 * @param sources one row per source with records, sorted by source
 * @param total the sum over those sources ({@code source} = {@code *})
 */
public record StatsReport(List<SourceQuarantineStats> sources, SourceQuarantineStats total) {
}
