package org.ingestquarantine.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;
import org.apache.commons.codec.digest.DigestUtils;

/**
 * The (source, doc_id) a delivery's quarantine record, log lines and metrics are keyed by. For a message that was
 * read, its own source and doc_id. For one that was not:
 * <ul>
 *   <li>a valid source this process is configured for, with a doc_id that breaks the schema (too long, a control
 *       character, the reserved prefix): that source, doc_id {@value #INVALID_DOC_ID_PREFIX} followed by the first
 *       {@value #DOC_ID_DIGEST_HEX} hex digits of the SHA-256 of the doc_id's UTF-8 bytes ({@link #invalidDocId},
 *       {@link #docIdDigest}), so the source's coverage counts the document, and the same bad name sent again
 *       (a second run over the same folder) finds the same record, whose attempts go up;</li>
 *   <li>anything else (not JSON, no source, an invalid, reserved or unconfigured source, a doc_id missing or not
 *       a string, so nothing to hash): source {@value #INVALID_MESSAGES_SOURCE}, doc_id the delivery key
 *       ({@link #unreadable}), so a producer never creates rows under a name of its own choosing, and never
 *       names a record it did not make (its own doc_id is not the key); each delivery of such a message has a
 *       record of its own.</li>
 * </ul>
 * Neither reserved form carries producer text: the delivery key is the broker's, the digest is one-way. No
 * message can carry either:
 * {@link IngestMessage#parse} refuses a doc_id beginning with {@value #INVALID_DOC_ID_PREFIX} and a source
 * beginning with {@value #RESERVED_SOURCE_PREFIX} (every such name is reserved: {@value #INVALID_MESSAGES_SOURCE},
 * the metrics' {@value #OTHER_SOURCES}), and no configuration or {@code ingest} command may name one.
 *
 * @param source the record's source
 * @param docId the record's doc_id
 */
public record RecordKey(String source, String docId) {

    /** Source of the records of messages that could not be attributed to a configured source. */
    public static final String INVALID_MESSAGES_SOURCE = "_invalid_messages";
    /** Prefix of every reserved source name: no message, configuration or command may name such a source. */
    public static final String RESERVED_SOURCE_PREFIX = "_";
    /**
     * Source tag a metric gives every source name read from the store that is neither configured nor
     * {@value #INVALID_MESSAGES_SOURCE} (rows an older version recorded), so that the tags stay bounded.
     */
    public static final String OTHER_SOURCES = "_other";
    /**
     * Prefix of the doc_id of a configured source's message whose doc_id is invalid; the doc_id's digest
     * ({@link #docIdDigest}) follows.
     */
    public static final String INVALID_DOC_ID_PREFIX = "_invalid_doc_id/";
    /** Length of {@link #docIdDigest}, in hex digits (128 bits of SHA-256). */
    public static final int DOC_ID_DIGEST_HEX = 32;

    /**
     * @param source the record's source, not null
     * @param docId the record's doc_id, not null
     */
    public RecordKey {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(docId, "docId");
    }

    /**
     * @param message a message that was read
     * @return its source and doc_id
     */
    public static RecordKey of(IngestMessage message) {
        return new RecordKey(message.source(), message.docId());
    }

    /**
     * @param deliveryKey the broker's identity of the message
     * @return {@value #INVALID_MESSAGES_SOURCE} / the delivery key
     */
    public static RecordKey unreadable(String deliveryKey) {
        return new RecordKey(INVALID_MESSAGES_SOURCE, String.valueOf(deliveryKey));
    }

    /**
     * @param source the message's source: valid and configured (the caller checked)
     * @param docIdDigest {@link #docIdDigest} of the message's invalid doc_id
     * @return the source / {@value #INVALID_DOC_ID_PREFIX}{@code <digest>}
     */
    public static RecordKey invalidDocId(String source, String docIdDigest) {
        return new RecordKey(source, INVALID_DOC_ID_PREFIX + Objects.requireNonNull(docIdDigest, "docIdDigest"));
    }

    /**
     * @param docId a doc_id exactly as the message carried it (the JSON string's value), not null
     * @return the first {@value #DOC_ID_DIGEST_HEX} lower-case hex digits of the SHA-256 of its UTF-8 bytes: the
     *     same for the same name on every run, and no producer text. A lone surrogate (a JSON {@code \\ud800} with no
     *     pair) is encoded as UTF-8 would encode its code point (WTF-8), not as the {@code ?} Java's encoder writes, so
     *     two doc_ids that differ only in their lone surrogates have two digests
     */
    public static String docIdDigest(String docId) {
        byte[] sha = DigestUtils.sha256(utf8KeepingLoneSurrogates(docId));
        return HexFormat.of().formatHex(sha, 0, DOC_ID_DIGEST_HEX / 2);
    }

    /** @return {@code s} as UTF-8, each lone surrogate as the three bytes of its code point (WTF-8) */
    private static byte[] utf8KeepingLoneSurrogates(String s) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(s.length() + 16);
        s.codePoints().forEach(cp -> {
            if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
                out.write(0xE0 | cp >> 12);
                out.write(0x80 | cp >> 6 & 0x3F);
                out.write(0x80 | cp & 0x3F);
            } else {
                out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
            }
        });
        return out.toByteArray();
    }

    /**
     * @param docId a recorded doc_id
     * @return whether it is the reserved form of {@link #invalidDocId}: no document of that name exists at the source
     */
    public static boolean isInvalidDocId(String docId) {
        return docId != null && docId.startsWith(INVALID_DOC_ID_PREFIX);
    }

    /**
     * @param source a source name
     * @return whether it is reserved (begins with {@value #RESERVED_SOURCE_PREFIX}, as
     *     {@value #INVALID_MESSAGES_SOURCE} does), never a configured source's name
     */
    public static boolean isReservedSource(String source) {
        return source != null && source.startsWith(RESERVED_SOURCE_PREFIX);
    }

    /** @return {@code source/doc_id}, each escaped and bounded ({@link LogSafe#identity}), for a log line */
    public String logForm() {
        return LogSafe.identity(source) + "/" + LogSafe.identity(docId);
    }
}
