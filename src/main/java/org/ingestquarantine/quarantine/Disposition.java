package org.ingestquarantine.quarantine;

import java.util.Locale;

/**
 * Where a quarantine record stands. {@link #OPEN} until a drain or an operator closes it; the lower-case
 * {@link #code()} is the database form ({@code repaired_parser_fixed}, ...).
 */
public enum Disposition {
    /** Failed and not yet resolved; counts against coverage. */
    OPEN,
    /** A replay with a newer parser succeeded on the same bytes. Re-opened by a later failure. */
    REPAIRED_PARSER_FIXED,
    /** A replay succeeded because the source now serves different bytes. Re-opened by a later failure. */
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
