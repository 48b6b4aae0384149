package org.ingestquarantine.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.ingestquarantine.app.PipelineApp;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker.RouteFault;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.quarantine.QuarantineQueries;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * What one {@code ingest} run did. JSON keys: documents, indexed, unchanged, skipped (by a route's policy, reason →
 * count), abandoned (doc ids whose delivery ended without an outcome: a route bug), quarantined (error_class →
 * count), partially_indexed (doc_id → page numbers lost), reasons (error_class/reason_code → count), fingerprints, coverage (of the whole source, 0.0–1.0),
 * unsettled (doc ids), pipeline_fault (the fault of our own route that stopped the run: stage, reason, type; null
 * when none did), elapsed_ms (the whole command), startup_ms (of it, starting database, broker, model and parser
 * workers), documents_per_s (after start-up).
 */
record RunSummary(String source, int documents, int indexed, int unchanged, Map<String, Integer> skipped,
                  List<String> abandoned, Map<String, Integer> quarantined,
                  Map<String, Integer> reasons, int fingerprints, Double coverage, List<String> unsettled,
                  long elapsedMs, long startupMs, Map<String, List<Integer>> partial, RouteFault pipelineFault) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param outcomeOf a delivery key's outcome (indexed, unchanged, stale, skipped, quarantined, abandoned),
     *     {@code null} while it has none
     * @param pipelineFault the fault of our own route that stopped the run, or null
     */
    static RunSummary collect(PipelineApp app, String source, Map<String, String> docIdsByKey,
                              UnaryOperator<String> outcomeOf, List<String> unsettledKeys, long elapsedMs,
                              long startupMs, RouteFault pipelineFault) {
        QuarantineStore store = app.bean("quarantineStore", QuarantineStore.class);
        QuarantineQueries queries = app.bean("quarantineQueries", QuarantineQueries.class);
        int indexed = 0;
        int unchanged = 0;
        // a document this run's own delivery found unchanged, written meanwhile by another delivery of this run
        // (a message an earlier, stopped run left queued), was indexed now, not "since an earlier run"
        Set<String> writtenNow = app.bean("documentIndex", DocumentIndex.class)
                .writtenSince(source, java.time.Instant.now().minusMillis(elapsedMs));
        Map<String, Integer> byClass = new TreeMap<>();
        Map<String, Integer> skipped = new TreeMap<>();
        List<String> abandoned = new ArrayList<>();
        Map<String, String> skipReasons = app.bean("policySkips", org.ingestquarantine.delivery.PolicySkips.class).reasons(source);
        Map<String, Integer> byReason = new TreeMap<>();
        Set<String> fingerprints = new HashSet<>();
        for (Map.Entry<String, String> e : docIdsByKey.entrySet()) {
            String outcome = outcomeOf.apply(e.getKey());
            if (outcome == null) {
                continue;
            }
            switch (outcome) {
                case "indexed", "stale" -> indexed++;
                case "unchanged" -> {
                    indexed++;
                    if (!writtenNow.contains(e.getValue())) {
                        unchanged++;
                    }
                }
                case "skipped" -> skipped.merge(skipReasons.getOrDefault(e.getValue(), "?"), 1, Integer::sum);
                case "abandoned" -> abandoned.add(e.getValue());
                case "quarantined" -> {
                    // a file whose name is not a valid identity (control characters, too long) was quarantined
                    // as an unreadable message: its record is keyed, not by its name, but under this source
                    // (configured by the ingest) by the name's digest or, from a process that did not know the
                    // source, under the reserved one by the delivery key
                    QuarantineRecord r = store.find(source, e.getValue())
                            .or(() -> store.find(source, RecordKey.invalidDocId(source,
                                    RecordKey.docIdDigest(e.getValue())).docId()))
                            .or(() -> store.find(RecordKey.INVALID_MESSAGES_SOURCE, e.getKey()))
                            .orElseThrow(() -> new IllegalStateException("document "
                                    + LogSafe.identity(e.getValue()) + " settled as quarantined but has no record"));
                    byClass.merge(r.errorClass().code(), 1, Integer::sum);
                    byReason.merge(r.errorClass().code() + "/" + r.reasonCode(), 1, Integer::sum);
                    if (r.errorFingerprint() != null) {
                        fingerprints.add(r.errorFingerprint());
                    }
                }
                default -> throw new IllegalStateException("unknown outcome " + outcome);
            }
        }
        List<String> unsettled = new ArrayList<>();
        unsettledKeys.forEach(k -> unsettled.add(docIdsByKey.get(k)));
        return new RunSummary(source, docIdsByKey.size(), indexed, unchanged, skipped, abandoned, byClass, byReason, fingerprints.size(),
                queries.coverage(java.util.List.of(source)).stream().filter(c -> c.source().equals(source))
                        .findFirst().map(c -> c.coverage()).orElse(null), unsettled, elapsedMs, startupMs,
                app.bean("documentIndex", DocumentIndex.class).partiallyIndexed(source), pipelineFault);
    }

    int skippedTotal() {
        return skipped.values().stream().mapToInt(Integer::intValue).sum();
    }

    int quarantinedTotal() {
        return quarantined.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** @return documents per second of processing, start-up (database, broker, model, workers) excluded */
    double documentsPerSecond() {
        long processingMs = elapsedMs - startupMs;
        return processingMs <= 0 ? 0.0 : documents * 1000.0 / processingMs;
    }

    String toJson() {
        ObjectNode n = JSON.createObjectNode();
        n.put("source", source);
        n.put("documents", documents);
        n.put("indexed", indexed);
        n.put("unchanged", unchanged);
        ObjectNode s = n.putObject("skipped");
        skipped.forEach(s::put);
        abandoned.forEach(n.putArray("abandoned")::add);
        ObjectNode p = n.putObject("partially_indexed");
        partial.forEach((docId, pages) -> pages.forEach(p.putArray(docId)::add));
        ObjectNode q = n.putObject("quarantined");
        quarantined.forEach(q::put);
        ObjectNode r = n.putObject("reasons");
        reasons.forEach(r::put);
        n.put("fingerprints", fingerprints);
        if (coverage == null) {
            n.putNull("coverage");
        } else {
            n.put("coverage", coverage);
        }
        unsettled.forEach(n.putArray("unsettled")::add);
        if (pipelineFault == null) {
            n.putNull("pipeline_fault");
        } else {
            n.putObject("pipeline_fault").put("stage", pipelineFault.stage()).put("reason", pipelineFault.reason())
                    .put("type", pipelineFault.type());
        }
        n.put("elapsed_ms", elapsedMs);
        n.put("startup_ms", startupMs);
        n.put("documents_per_s", Math.round(documentsPerSecond() * 100.0) / 100.0);
        return n.toString();
    }

    String toText() {
        StringBuilder b = new StringBuilder();
        b.append(String.format("source        %s%n", source));
        b.append(String.format("documents     %d%n", documents));
        b.append(String.format("indexed       %d (%d unchanged since an earlier run)%n", indexed, unchanged));
        if (!partial.isEmpty()) {
            b.append(String.format("  partial     %d indexed with pages lost (doc_id=[page numbers]): %s%n", partial.size(), partial));
        }
        b.append(String.format("skipped       %d (by a route's policy, by reason)%n", skippedTotal()));
        skipped.forEach((k, v) -> b.append(String.format("  %-40s %d%n", k, v)));
        if (!abandoned.isEmpty()) {
            b.append(String.format("ABANDONED     %d: %s (a route ended the delivery without an outcome;"
                    + " acknowledged, attempt closed)%n", abandoned.size(), abandoned));
        }
        b.append(String.format("quarantined   %d%n", quarantinedTotal()));
        reasons.forEach((k, v) -> b.append(String.format("  %-40s %d%n", k, v)));
        b.append(String.format("fingerprints  %d distinct%n", fingerprints));
        b.append(String.format("coverage      %s of source '%s' (indexed / documents, as the coverage command counts them)%n",
                coverage == null ? "n/a" : org.ingestquarantine.metrics.CoverageRatio.percent(coverage), source));
        if (!unsettled.isEmpty()) {
            b.append(String.format("UNSETTLED     %d: %s (still on the broker or in its dead-letter queue)%n",
                    unsettled.size(), unsettled));
        }
        if (pipelineFault != null) {
            b.append(String.format("PIPELINE FAULT %s: a fault of our own route; nothing quarantined for it%n",
                    pipelineFault.describe()));
        }
        b.append(String.format("elapsed       %.1f s (start-up %.1f s), %.2f documents/s after start-up",
                elapsedMs / 1000.0, startupMs / 1000.0, documentsPerSecond()));
        return b.toString();
    }
}
