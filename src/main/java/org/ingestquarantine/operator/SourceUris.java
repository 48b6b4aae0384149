package org.ingestquarantine.operator;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.ingestquarantine.quarantine.QuarantineRecord;

/**
 * Where a drain asks a record's source for its document, first found wins:
 * <ol>
 *   <li>{@code sources.<name>.base-uri} + doc_id, when the operator configured it: an override, e.g. for a source
 *       that moved;</li>
 *   <li>the URI the record keeps ({@code source_uri}): the one its message named (or a drain fetched), as its
 *       source's trust check admitted it when it was recorded, whatever its scheme;</li>
 *   <li>for a record that keeps none (written before records kept their URI, or its URI was refused): the folder an
 *       {@code ingest <folder>} counted for the source ({@code source_totals}) + doc_id.</li>
 * </ol>
 * Whichever it is, the drain checks it against the source's configuration of its own process before any request.
 */
final class SourceUris {

    private final Function<String, Optional<URI>> overrides;
    private final Function<String, Optional<URI>> fallbacks;

    /**
     * @param overrides source → its configured {@code base-uri}, empty if none
     * @param fallbacks source → where its doc_ids resolve when a record keeps no URI, empty if unknown
     */
    SourceUris(Function<String, Optional<URI>> overrides, Function<String, Optional<URI>> fallbacks) {
        this.overrides = Objects.requireNonNull(overrides, "overrides");
        this.fallbacks = Objects.requireNonNull(fallbacks, "fallbacks");
    }

    /**
     * @param record a record
     * @return where to ask its source for its document; empty when none is known (or a base does not resolve the
     *     doc_id)
     */
    Optional<URI> of(QuarantineRecord record) {
        Optional<URI> override = overrides.apply(record.source());
        if (override.isPresent()) {
            return resolve(override.get(), record.docId());
        }
        if (record.sourceUri() != null) {
            try {
                return Optional.of(new URI(record.sourceUri()));
            } catch (URISyntaxException e) {
                return Optional.empty(); // it was parsed from a message: not expected; then no URI is known
            }
        }
        return fallbacks.apply(record.source()).flatMap(base -> resolve(base, record.docId()));
    }

    private static Optional<URI> resolve(URI base, String docId) {
        try {
            return Optional.of(base.resolve(new URI(null, null, docId, null)));
        } catch (URISyntaxException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
