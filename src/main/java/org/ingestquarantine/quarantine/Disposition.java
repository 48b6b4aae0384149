package org.ingestquarantine.quarantine;

import java.util.Locale;

/**
 * Where a quarantine record stands. {@link #OPEN} until a drain, an operator, or a later delivery that indexes
 * the document (in its index write's transaction, {@code ingest.DocumentIndex}) closes it; the lower-case
 * {@link #code()} is the database form ({@code repaired_parser_fixed}, ...).
 */
public enum Disposition {
    /** Failed and not yet resolved; counts against coverage. */
    OPEN,
    /**
     * A replay or a later delivery succeeded on the same bytes (the source's version and payload sha256 are the
     * record's, or unknown to it), with a newer parser; or with the same parser, and then the record's reason
     * code is {@code no_change_seen} (nothing the record holds changed: a transient cause went away). Re-opened
     * by a later failure.
     */
    REPAIRED_PARSER_FIXED,
    /**
     * A replay or a later delivery succeeded and the source now serves different bytes (another version or
     * payload sha256 than the record's). Re-opened by a later failure.
     */
    REPAIRED_CONTENT_CHANGED,
    /** The source answered 404/410. Re-opened by a later failure (the document came back). */
    DELETED_AT_SOURCE,
    /** Accepted residue with a reason code and an owner; stays in the coverage denominator. */
    UNINDEXABLE,
    /** Payload, trace and message text removed for this document; the row stays as a tombstone. */
    ERASED;

    /** @return the lower-case database code, e.g. {@code deleted_at_source} */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param code a database code, any case
     * @return the matching disposition
     * @throws IllegalArgumentException if {@code code} names none
     */
    public static Disposition fromCode(String code) {
        return valueOf(code.trim().toUpperCase(Locale.ROOT));
    }

    /** @return whether a new failure of the document re-opens a record closed with this disposition */
    public boolean reopensOnFailure() {
        return this == REPAIRED_PARSER_FIXED || this == REPAIRED_CONTENT_CHANGED || this == DELETED_AT_SOURCE;
    }
}
