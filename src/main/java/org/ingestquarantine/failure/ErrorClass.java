package org.ingestquarantine.failure;

import java.util.Locale;

/**
 * The failure taxonomy: every failed document ends in exactly one of these classes.
 *
 * <p>The class decides how many redeliveries a document gets ({@link RedeliveryPolicy}), and it is
 * stored as {@code error_class} on the quarantine record. The lower-case {@link #code()} is the
 * wire and database form ({@code transient}, {@code ambiguous_parse}, ...).
 *
 * <p>{@link #PIPELINE_FAULT} is the one class that is not the document's: it is never quarantined and has no
 * budget ({@link #chargedToDocument()}).
 */
public enum ErrorClass {
    /** Waiting can help: HTTP 429/5xx, connection reset, database or broker timeout. */
    TRANSIENT,
    /** The parser threw for a reason it cannot name: syntax error, missing /Root, unknown IOException. */
    AMBIGUOUS_PARSE,
    /** The parser process died (heap, time limit, crash), or the consumer died mid-message. */
    RESOURCE_FATAL,
    /** The input itself is unusable: not a PDF, empty, user-password encrypted, too large, no text layer. */
    PERMANENT_INPUT,
    /** Our own output broke a downstream contract: chunk longer than the model's context, wrong vector width. */
    DOWNSTREAM_CONTRACT,
    /** Anything not mapped to a class above; a gap in the taxonomy that alerts. */
    UNCLASSIFIED,
    /**
     * Our own route failed, not the document: an expression that cannot evaluate, a missing bean, method or
     * endpoint, a body a step cannot take. Released and the consumer held, never quarantined; alerts.
     */
    PIPELINE_FAULT;

    /**
     * @return whether a failure of this class is the document's, so that it spends the document's budget
     *     ({@code failure.<class>.*}) and ends in quarantine once that is spent; false only for {@link #PIPELINE_FAULT}
     */
    public boolean chargedToDocument() {
        return this != PIPELINE_FAULT;
    }

    /** @return the lower-case code used in the database, metrics and headers, e.g. {@code ambiguous_parse} */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param code a lower-case or upper-case class code
     * @return the matching class
     * @throws IllegalArgumentException if {@code code} names no class
     */
    public static ErrorClass fromCode(String code) {
        return valueOf(code.trim().toUpperCase(Locale.ROOT));
    }
}
