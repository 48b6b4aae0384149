package org.ingestquarantine.ingest;

import java.util.Locale;

/** State of a {@code documents} row; the lower-case {@link #code()} is the database form. */
public enum DocumentState {
    /** Chunks are being replaced; only ever visible inside the writing transaction. */
    INDEXING,
    /** Every chunk is written; the document answers searches. */
    SEARCHABLE;

    /** @return {@code indexing} or {@code searchable} */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param code a database code, any case
     * @return the matching state
     * @throws IllegalArgumentException if {@code code} names none
     */
    public static DocumentState fromCode(String code) {
        return valueOf(code.trim().toUpperCase(Locale.ROOT));
    }
}
