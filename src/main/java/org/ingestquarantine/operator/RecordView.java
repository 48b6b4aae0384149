package org.ingestquarantine.operator;

import java.time.Instant;
import org.ingestquarantine.quarantine.QuarantineRecord;

/**
 * Every field of one evidence record (DESIGN §3) as a value, for the CLI and the HTTP API. Codes are the
 * database's lower-case forms. {@code errorMessage} may quote document text: show it, never log it.
 * {@code sourceUri} is the URI the document was fetched from, admitted by its source's trust check when it was
 * recorded (null: refused, none known, or erased). {@code attempts} counts deliveries, {@code quarantineWrites} the
 * attempt history's rows; {@code verdictBy} is the evidence that decided a repaired record's verdict
 * ({@code sha256}, {@code version} or {@code none}), null otherwise. {@code replayCount}, {@code lastReplayedAt} and
 * {@code lastDrainRunId} are its replay history: how many times a drain asked its source again (whatever the verdict),
 * when it last did and in which run (0 and nulls when never); {@code fingerprintVersion} the version of the
 * fingerprint's algorithm ({@link org.ingestquarantine.failure.ErrorFingerprint#VERSION}), null before versioning.
 */
public record RecordView(String dlqId, String source, String docId, String sourceUri, String sourceVersion, Instant sourceUpdatedAt,
                         String cursorAtArrival, Long ingestSeq, String connectorVersion, String parserVersion,
                         String chunkerVersion, String embedderVersion, String contentType, String stage,
                         String payloadUri, String payloadSha256, Long payloadBytes, String errorClass,
                         String errorType, String errorMessage, String errorFingerprint, String stackTraceUri,
                         int attempts, Instant firstSeenAt, Instant lastSeenAt, String disposition,
                         String reasonCode, String owner, Instant closedAt, int quarantineWrites,
                         String verdictBy, int replayCount, Instant lastReplayedAt, String lastDrainRunId,
                         Integer fingerprintVersion) {

    /**
     * @param r a stored record
     * @return its view
     */
    public static RecordView of(QuarantineRecord r) {
        return new RecordView(r.dlqId(), r.source(), r.docId(), r.sourceUri(), r.sourceVersion(), r.sourceUpdatedAt(),
                r.cursorAtArrival(), r.ingestSeq(), r.connectorVersion(), r.parserVersion(), r.chunkerVersion(),
                r.embedderVersion(), r.contentType(), r.stage(), r.payloadUri(), r.payloadSha256(), r.payloadBytes(),
                r.errorClass().code(), r.errorType(), r.errorMessage(), r.errorFingerprint(), r.stackTraceUri(),
                r.attempts(), r.firstSeenAt(), r.lastSeenAt(), r.disposition().code(), r.reasonCode(), r.owner(),
                r.closedAt(), r.quarantineWrites(), r.verdictBy(), r.replayCount(), r.lastReplayedAt(),
                r.lastDrainRunId(), r.fingerprintVersion());
    }
}
