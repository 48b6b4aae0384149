package org.ingestquarantine.operator;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.quarantine.QuarantineRecord;

/**
 * Before a drain asks a record's source anything: whether this process may, by ITS configuration, and where. A
 * record it may not ask about (the source is not configured here, the folder an ingest recorded is gone, the URI is
 * outside the source's roots or cannot be formed, no connector reads its scheme), or that names no document (an
 * invalid doc_id), is {@value Drain#NOT_ATTEMPTED}{@code <reason>}: no request, no new attempt.
 */
final class ReplayPreflight {

    /** Reason of {@value Drain#NOT_ATTEMPTED} when no URI is known for the record's source. */
    static final String NO_SOURCE_URI = "no_source_uri";

    /** Reason of {@value Drain#NOT_ATTEMPTED} when the record's URI has a scheme no connector of this process reads. */
    static final String UNSUPPORTED_URI = "unsupported_uri";

    /**
     * Reason of {@value Drain#NOT_ATTEMPTED} for a record of a message whose doc_id was invalid (doc_id
     * {@value RecordKey#INVALID_DOC_ID_PREFIX}{@code <digest of the doc_id>}): there is no document to ask the source for.
     */
    static final String INVALID_DOC_ID = "invalid_doc_id";

    /** Reason of {@value Drain#NOT_ATTEMPTED} when the folder an ingest recorded as the source's root is gone. */
    static final String SOURCE_FOLDER_MISSING = "source_folder_missing";

    /** Refusals of this process's source configuration (DESIGN §9), not of the document. */
    private static final Set<String> CONFIGURATION_REASONS = Set.of("unknown_source", "uri_not_allowed",
            "invalid_uri");

    /**
     * What the preflight found.
     *
     * @param notAttempted the record's outcome {@value Drain#NOT_ATTEMPTED}{@code <reason>}, or null when it is asked
     * @param uri where to ask, when it is asked
     * @param connector which connector asks, when it is asked
     * @param admitted whether this process's trust check admitted the URI (a failed check other than a
     *     configuration refusal is the source's answer, asked all the same)
     */
    record Verdict(String notAttempted, URI uri, SourceConnector connector, boolean admitted) {
    }

    private final Map<String, SourceConnector> connectors;
    private final SourceAccess access;
    private final Map<String, Path> missingRoots;
    private final SourceUris uris;

    ReplayPreflight(Map<String, SourceConnector> connectors, SourceAccess access, Map<String, Path> missingRoots,
                    SourceUris uris) {
        this.connectors = connectors;
        this.access = access;
        this.missingRoots = missingRoots;
        this.uris = uris;
    }

    /** @param tally keeps the explanation of a not-attempted record's reason */
    Verdict check(QuarantineRecord record, DrainTally tally) {
        if (RecordKey.isInvalidDocId(record.docId())) {
            return refused(tally.notAttempted(INVALID_DOC_ID, "the message's doc_id was not a valid identity (too"
                    + " long, a control character), so no document can be asked of the source; the record is keyed by"
                    + " a digest of it. Rename the file (or fix the producer) and ingest again; the record stays open"
                    + " until disposed (dispose --fingerprint ... --unindexable) or erased"));
        }
        Path missingRoot = missingRoots.get(record.source());
        if (missingRoot != null) {
            return refused(tally.notAttempted(SOURCE_FOLDER_MISSING, "the folder "
                    + LogSafe.identity(missingRoot.toString()) + " that ingest recorded for source '"
                    + LogSafe.identity(record.source()) + "' no longer exists (deleted or moved); ingest the folder"
                    + " where it is now with this --data-dir, or configure sources."
                    + LogSafe.identity(record.source()) + ".file-roots"));
        }
        Optional<URI> uri = uris.of(record);
        if (uri.isEmpty()) {
            return refused(tally.notAttempted(NO_SOURCE_URI, "this process knows no URI for source '"
                    + LogSafe.identity(record.source()) + "' (the record keeps none: it was written before records"
                    + " kept their URI, or its URI was refused; configure sources." + LogSafe.identity(record.source())
                    + ".base-uri, or ingest its folder with this --data-dir)"));
        }
        String scheme = uri.get().getScheme();
        SourceConnector connector = scheme == null ? null : connectors.get(scheme);
        if (connector == null) {
            return refused(tally.notAttempted(UNSUPPORTED_URI, "this process has no connector for the record's"
                    + " URI " + LogSafe.identity(uri.get().toString()) + "; it reads "
                    + connectors.keySet().stream().sorted().toList()));
        }
        // this process's configuration must allow the source before anything is asked of it (it may have narrowed
        // since the record was written): a refusal is about the configuration, not the document, and must not
        // become the record's evidence
        boolean admitted = false;
        try {
            access.guard(record.source()).check(uri.get());
            admitted = true;
        } catch (PermanentInputException refused) {
            if (CONFIGURATION_REASONS.contains(refused.reasonCode())) {
                return refused(tally.notAttempted(refused.reasonCode(), refused.getMessage()
                        + ("unknown_source".equals(refused.reasonCode()) ? " (or ingest its folder again with this"
                        + " --data-dir: ingest records the folder for later drains)" : "")));
            }
        } catch (IOException | RuntimeException askedTheSource) {
            // a file missing inside the roots, a host that does not resolve: the source's answer, asked below
        }
        return new Verdict(null, uri.get(), connector, admitted);
    }

    private static Verdict refused(String outcome) {
        return new Verdict(outcome, null, null, false);
    }
}
