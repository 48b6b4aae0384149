package org.ingestquarantine.quarantine;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.metrics.SourceTags;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.SummaryChecks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Ensures the recorder writes the running fingerprint algorithm's version with the fingerprint on every record: a
 * new one, and one written before versioning that fails again (it moves to the running algorithm's cohort).
 */
class RecordedFingerprintVersionIT extends PostgresTestBase {

    @TempDir
    Path temp;

    @Test
    void shouldWriteTheRunningVersionOnEveryRecord() throws Exception {
        QuarantineStore store = new QuarantineStore(dataSource(), new LocalPayloadStore(temp.resolve("objects")),
                Clock.systemUTC());
        QuarantineRecorder recorder = new QuarantineRecorder(store,
                new PipelineVersions(Map.of("file", "folder-1"), "p1", "c1", "e1"),
                new PipelineMetrics(new SimpleMeterRegistry(), SourceTags.of(List.of("docs"))));
        PermanentInputException empty = new PermanentInputException("empty", "the document has 0 bytes");

        Map<String, Object> row = recorder.evidence(failedDelivery(empty, "k1"));
        record(row);

        assertThat(row).containsEntry("fingerprint_version", ErrorFingerprint.VERSION);
        assertThat(versionAndFingerprint()).isEqualTo(ErrorFingerprint.VERSION + " " + ErrorFingerprint.of(empty));

        // a record written before versioning, in its old cohort, fails again
        new JdbcTemplate(dataSource()).update("UPDATE quarantine SET fingerprint_version = NULL, error_fingerprint = 'v1fingerprint000'");
        record(recorder.evidence(failedDelivery(empty, "k2")));

        assertThat(versionAndFingerprint()).isEqualTo(ErrorFingerprint.VERSION + " " + ErrorFingerprint.of(empty));
        SummaryChecks.assertSummariesMatchTheRecords(dataSource(), "after the record moved cohorts by failing again");
    }

    private void record(Map<String, Object> row) throws Exception {
        new RecordStatement(dataSource()).run(row);
    }

    private String versionAndFingerprint() throws Exception {
        return new JdbcTemplate(dataSource()).queryForList(
                "SELECT fingerprint_version || ' ' || error_fingerprint FROM quarantine", String.class).get(0);
    }

    private Exchange failedDelivery(Throwable failure, String deliveryKey) {
        Exchange e = new DefaultExchange(new DefaultCamelContext());
        Path file = temp.resolve("empty.pdf");
        e.setProperty(PipelineKeys.MESSAGE, new IngestMessage("docs", "empty.pdf", file.toUri(), null, null, null));
        e.setProperty(Exchange.EXCEPTION_CAUGHT, failure);
        e.setProperty(PipelineKeys.FAILURE, new Classification(ErrorClass.PERMANENT_INPUT, "empty", failure));
        e.setProperty(PipelineKeys.STAGE, "preflight");
        e.setProperty(PipelineKeys.DELIVERY_KEY, deliveryKey);
        e.setProperty(PipelineKeys.DELIVERY_COUNT, 1);
        return e;
    }
}
