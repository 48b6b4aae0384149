package org.ingestquarantine.operator;

import java.time.Instant;
import java.util.Map;

/**
 * Quarantine volume of one source (or of all sources, {@code source} = {@code *}).
 *
 * @param source connector name, or {@code *} for the total
 * @param records failures recorded: attempts over every record
 * @param documents distinct documents with a record
 * @param oldestFirstSeen earliest first_seen_at, null when there is no record
 * @param newestFirstSeen latest first_seen_at, null when there is no record
 * @param documentsByDisposition disposition code → documents; every disposition present, 0 when none
 */
public record SourceQuarantineStats(String source, long records, long documents, Instant oldestFirstSeen,
                                    Instant newestFirstSeen, Map<String, Long> documentsByDisposition) {

    /** @return documents whose record is open */
    public long open() {
        return documentsByDisposition.getOrDefault("open", 0L);
    }

    /** @return documents whose record is closed, whatever the disposition */
    public long closed() {
        return documents - open();
    }
}
