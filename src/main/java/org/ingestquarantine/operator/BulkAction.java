package org.ingestquarantine.operator;

import java.util.Locale;

/** An operator's action on a whole selection of records, recorded in the actions trail ({@link ActionTrail}). */
public enum BulkAction {
    /** Moves a cohort's open records to the unindexable register ({@link Dispositions}). */
    DISPOSE,
    /** Replays the oldest records of a cohort from their source ({@link Drain}); a canary is a small limit. */
    DRAIN;

    /** @return the name stored and shown, e.g. {@code dispose} */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
