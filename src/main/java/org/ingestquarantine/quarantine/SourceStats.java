package org.ingestquarantine.quarantine;

import java.time.Instant;

/**
 * Quarantine volume of one source.
 *
 * @param source connector name
 * @param records failures recorded (attempts, every delivery that failed)
 * @param documents distinct documents with a record
 * @param open documents whose record is open
 * @param oldest earliest first_seen_at
 * @param newest latest last_seen_at
 */
public record SourceStats(String source, long records, long documents, long open, Instant oldest, Instant newest) {
}
