package org.ingestquarantine.cli;

import java.io.PrintWriter;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.RecordDetail;
import org.ingestquarantine.operator.RecordView;
import org.ingestquarantine.operator.StackTraceView;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code show <dlq_id | source/doc_id> [--stack-trace]}: the whole evidence record with its attempt history and replay
 * history; or its stack trace, types and frames only.
 */
@Command(name = "show", mixinStandardHelpOptions = true,
        description = "The whole evidence record with its attempt history, replays, versions, payload and trace"
                + " locations; with --stack-trace, the failure's stack trace (types and frames).")
final class ShowCommand extends RecordCommand {

    @Option(names = "--stack-trace", description = "Print the failure's stack trace instead: exception types and"
            + " frames, every message left out (a message may quote the document; error_message holds the root's).")
    boolean stackTrace;

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        if (stackTrace) {
            StackTraceView v = runtime.service().stackTrace(ref);
            print(out, v, v.stored() ? "stack trace of " + v.dlqId() + " (" + v.stackTraceUri() + "), types and frames,"
                    + " messages left out:" + System.lineSeparator() + v.stackTrace().stripTrailing()
                    : "no stack trace for " + v.dlqId() + ": " + v.why());
            return 0;
        }
        RecordDetail d = runtime.service().show(ref);
        RecordView r = d.record();
        StringBuilder b = new StringBuilder();
        field(b, "dlq_id", r.dlqId());
        field(b, "document", r.source() + "/" + r.docId());
        field(b, "source_uri", r.sourceUri() != null ? r.sourceUri() : "erased".equals(r.disposition())
                ? "- (erased)" : "- (none recorded: refused by the source's trust check, or recorded before records kept it)");
        field(b, "disposition", r.disposition() + (r.closedAt() == null ? "" : " since " + time(r.closedAt())));
        field(b, "reason_code", r.reasonCode());
        field(b, "owner", r.owner());
        if (r.verdictBy() != null) {
            field(b, "verdict_by", r.verdictBy());
        }
        field(b, "error", r.errorClass() + (r.errorType() == null ? "" : " " + r.errorType()));
        field(b, "error_message", r.errorMessage());
        field(b, "fingerprint", r.errorFingerprint() == null ? null : r.errorFingerprint()
                + (r.fingerprintVersion() == null ? " (before fingerprint versioning)" : " (algorithm " + r.fingerprintVersion() + ")"));
        field(b, "stage", r.stage());
        field(b, "replays", replays(r));
        field(b, "attempts", r.attempts() + " deliveries, " + r.quarantineWrites() + " recorded, first seen " + time(r.firstSeenAt()) + ", last seen " + time(r.lastSeenAt()));
        field(b, "source_version", java.util.Objects.toString(r.sourceVersion(), "erased".equals(r.disposition()) ? "- (erased)" : "- (the source gave none)") + (r.sourceUpdatedAt() == null ? "" : " (updated " + time(r.sourceUpdatedAt()) + ")"));
        field(b, "cursor / seq", java.util.Objects.toString(r.cursorAtArrival(), "-") + " / "
                + java.util.Objects.toString(r.ingestSeq(), "-"));
        field(b, "versions", "connector " + orDash(r.connectorVersion()) + ", parser " + orDash(r.parserVersion())
                + ", chunker " + orDash(r.chunkerVersion()) + ", embedder " + orDash(r.embedderVersion()));
        field(b, "content_type", r.contentType());
        field(b, "payload", r.payloadUri() == null ? "none (never fetched, expired or erased)"
                : r.payloadUri() + " (" + r.payloadBytes() + " bytes, sha256 " + r.payloadSha256() + ")"
                + presence(d.payloadStored(), d.payloadNote()));
        field(b, "stack_trace", r.stackTraceUri() == null ? "none"
                : r.stackTraceUri() + presence(d.stackTraceStored(), d.stackTraceNote()));
        Table t = new Table("attempt", "seen_at", "class", "error_type", "fingerprint", "reason", "stage",
                "source_version", "parser_version", "delivery");
        for (QuarantineAttempt a : d.attempts()) {
            t.row(a.attemptNo(), time(a.seenAt()), a.errorClass().code(), a.errorType(), a.errorFingerprint(),
                    a.reasonCode(), a.stage(), a.sourceVersion(), a.parserVersion(),
                    (a.deliveryKey() == null ? "-" : a.deliveryKey()) + " #" + a.deliveryCount());
        }
        print(out, d, b + System.lineSeparator() + t);
        return 0;
    }

    private static void field(StringBuilder b, String name, Object value) {
        b.append(String.format("%-16s%s%n", name, value == null ? "-" : value.toString().replaceAll("\\p{Cntrl}", " ")));
    }

    /** @return nothing for an object that is stored, else whether it is missing or cannot be reached from here */
    private static String presence(boolean stored, String note) {
        return stored ? "" : note != null ? " NOT READABLE HERE: " + note : " MISSING from the store";
    }

    /** @return the record's replay history: how many drains asked its source again, the last one's time and run */
    private static String replays(RecordView r) {
        return r.replayCount() == 0 ? "0 (no drain has replayed it)" : r.replayCount() + ", last "
                + time(r.lastReplayedAt()) + " by drain run " + orDash(r.lastDrainRunId());
    }

    /** A version the record does not hold (the stage was never reached) as "-", never "null". */
    private static String orDash(String version) {
        return version == null ? "-" : version;
    }
}
