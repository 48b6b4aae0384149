package org.ingestquarantine.operator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Objects;
import org.apache.commons.codec.digest.DigestUtils;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.ParseException;
import org.ingestquarantine.parse.ParsedDocument;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.PayloadCorruptException;
import org.ingestquarantine.quarantine.PayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;

/**
 * {@code reproduce}: parses a record's STORED payload again with the parser running now, in its sandbox (the
 * worker pool), after checking the bytes' SHA-256 against the record. The bytes are held fixed, so the
 * answer is about the code alone. Writes nothing to the quarantine or the index; the copy handed to the
 * parser is a temporary file in the work folder, deleted afterwards. A record of a message that named no valid
 * document (invalid doc_id, unreadable message) is not parsed: its payload is the message. Thread-safe if the
 * parser is.
 */
public final class Reproducer {

    private final OperatorService service;
    private final PayloadStore payloads;
    private final DocumentParser parser;
    private final ErrorClassifier classifier = ErrorTaxonomy.standard();
    private final Path workDir;

    /** Reason of a document refused from its HEAD for having 0 bytes (Preflight) and of an empty fetched file. */
    private static final String EMPTY = "empty";

    /**
     * @param service finds records
     * @param payloads where the payloads are
     * @param parser the running parser, normally the worker pool
     * @param workDir folder for the temporary copy; created if missing
     */
    public Reproducer(OperatorService service, PayloadStore payloads, DocumentParser parser, Path workDir) {
        this.service = Objects.requireNonNull(service, "service");
        this.payloads = Objects.requireNonNull(payloads, "payloads");
        this.parser = Objects.requireNonNull(parser, "parser");
        this.workDir = Objects.requireNonNull(workDir, "workDir");
    }

    /**
     * @param ref a dlq_id or {@code source/doc_id}
     * @return the verdict
     * @throws BadOperatorInputException if no record has that name
     * @throws IOException if the payload store or the work folder cannot be read or written
     */
    public Reproduction reproduce(String ref) throws IOException {
        QuarantineRecord r = service.find(RecordRef.parse(ref));
        if (RecordKey.isInvalidDocId(r.docId()) || RecordKey.isReservedSource(r.source())) {
            // the payload kept for such a record is the raw message, not a document: parsing it says nothing
            return verdict(r, Reproduction.Outcome.INVALID_MESSAGE, null, null, null, null, null, null);
        }
        if (r.payloadUri() == null) {
            return verdict(r, withoutPayload(r), null, null, null, null, null, null);
        }
        Files.createDirectories(workDir);
        Path copy = Files.createTempFile(workDir, "reproduce-", ".bin");
        try {
            String sha256;
            try {
                sha256 = copyHashing(r.payloadUri(), copy);
            } catch (NoSuchFileException e) {
                return verdict(r, Reproduction.Outcome.PAYLOAD_MISSING, null, null, null, null, null, null);
            }
            if (r.payloadSha256() != null && !r.payloadSha256().trim().equals(sha256)) {
                return verdict(r, Reproduction.Outcome.PAYLOAD_MISMATCH, null, null, null, null, null, sha256);
            }
            try {
                ParsedDocument parsed = parser.parse(copy);
                return verdict(r, Reproduction.Outcome.NOW_PARSES, null, null, null, parsed.pageCount(),
                        parsed.nonWhitespaceChars(), sha256);
            } catch (ParseException e) {
                String fingerprint = ErrorFingerprint.of(e);
                Classification c = classifier.classify(e);
                Reproduction.Outcome outcome = fingerprint.equals(r.errorFingerprint())
                        ? Reproduction.Outcome.SAME_FAILURE : Reproduction.Outcome.DIFFERENT_FAILURE;
                return verdict(r, outcome, fingerprint, c.errorClass().code(), c.reasonCode(), null, null, sha256);
            }
        } finally {
            Files.deleteIfExists(copy);
        }
    }

    /** What is true of a record that names no payload object. */
    private static Reproduction.Outcome withoutPayload(QuarantineRecord r) {
        if (r.disposition() == Disposition.ERASED) {
            return Reproduction.Outcome.PAYLOAD_ERASED;
        }
        if (r.payloadSha256() != null) {
            return Reproduction.Outcome.PAYLOAD_EXPIRED; // expire-payloads keeps the hash and the size
        }
        // an empty document is refused from its HEAD (0 bytes), before anything is fetched or stored
        return r.errorClass() == ErrorClass.PERMANENT_INPUT && EMPTY.equals(r.reasonCode())
                ? Reproduction.Outcome.EMPTY_PAYLOAD : Reproduction.Outcome.NO_PAYLOAD_STORED;
    }

    private String copyHashing(String uri, Path target) throws IOException {
        MessageDigest digest = DigestUtils.getSha256Digest();
        try (InputStream in = payloads.open(uri);
             OutputStream out = new DigestOutputStream(Files.newOutputStream(target), digest)) {
            in.transferTo(out);
        } catch (PayloadCorruptException e) {
            // every byte was read: the store's own check failed, and the hash compared below says so as a mismatch
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static Reproduction verdict(QuarantineRecord r, Reproduction.Outcome outcome, String fingerprint,
                                        String errorClass, String reason, Integer pages, Long chars, String sha256) {
        return new Reproduction(r.dlqId(), r.source() + "/" + r.docId(), outcome, r.errorFingerprint(), r.stage(),
                fingerprint, errorClass, reason, pages, chars, ParserVersion.CURRENT, sha256, r.errorClass().code(),
                r.reasonCode(), r.payloadSha256());
    }
}
