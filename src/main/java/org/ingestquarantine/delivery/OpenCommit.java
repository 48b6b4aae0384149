package org.ingestquarantine.delivery;

import java.util.Locale;

/**
 * How the attempt journal's open ({@link AttemptJournal#admit}, {@link AttemptJournal#open}) commits: property
 * {@value #PROPERTY}, set in application.properties (issue 26). The outcome (index write or quarantine record, with
 * the attempt's close) and every other close commit synchronously whatever this says, before any acknowledgement.
 *
 * <p><b>What the asynchronous open risks, and what not.</b> Its commit returns before its WAL record reaches the
 * disk; it is visible to every reader at once. A consumer killed with {@code kill -9} does not take PostgreSQL's WAL
 * buffer with it, so its open is still written and its death still counted. Only a crash of PostgreSQL itself or of
 * its machine within the WAL writer's window ({@code wal_writer_delay}, 200 ms by default, up to three times that)
 * can lose an open that no later synchronous commit has flushed; any synchronous commit, of any session, flushes
 * every earlier WAL record, so an attempt whose outcome committed always has its open. A lost open is a delivery
 * that goes uncounted, never a death invented: on SQS and RabbitMQ the broker's delivery count still counts it, on
 * Kafka (the journal is the counter) the document may get one delivery more than its budget.
 */
public enum OpenCommit {
    /** {@code synchronous_commit = off} for the open's own transaction only ({@code SET LOCAL}): one WAL flush less. */
    ASYNCHRONOUS,
    /** The server's own {@code synchronous_commit}: the open waits for its WAL flush, as the outcome does. */
    SYNCHRONOUS;

    /** The property that chooses. */
    public static final String PROPERTY = "delivery.journal-open-commit";

    /**
     * @param value {@code asynchronous} or {@code synchronous}, any case
     * @return the choice
     * @throws IllegalArgumentException naming the property when the value is neither
     */
    public static OpenCommit of(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException(PROPERTY + " is 'asynchronous' or 'synchronous', was '" + value + "'",
                    e);
        }
    }
}
