package org.ingestquarantine.app;

import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.Installation;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.metrics.SkippedCoverage;
import org.ingestquarantine.quarantine.PayloadStores;
import org.ingestquarantine.quarantine.QuarantineQueries;
import org.ingestquarantine.quarantine.QuarantineRecorder;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.pipeline.PipelineVersions;

/**
 * The quarantine: the payload store ({@code payload.*} with {@code s3.*}: {@link PayloadStores}), checked before
 * a consumer starts and claimed for this database, and the evidence records naming each source's owner
 * ({@code sources.<name>.owner}).
 */
final class QuarantineWiring {

    private QuarantineWiring() {
    }

    /**
     * @return the payload store, checked (a consumer that could not store evidence must not consume) and claimed
     *     by this database (one database per payload store); closed on stop
     */
    static PayloadStores payloads(Wiring w, Database database) throws Exception {
        PayloadStores payloads = PayloadStores.fromSettings(w.settings(), w.dataDir());
        w.closeOnStop(payloads);
        payloads.checkAtStart(); // a consumer that could not store evidence must not consume
        payloads.claim(Installation.id(database.dataSource())); // one database per payload store
        return payloads;
    }

    /** @return the evidence records, written through the database and the payload store */
    static QuarantineStore store(Wiring w, Database database, PayloadStores payloads) {
        return new QuarantineStore(database.dataSource(), payloads,
                source -> w.settings().find("sources." + source + ".owner"), w.clock());
    }

    /** Binds the store, its queries ({@code coverage.skipped-documents}) and the recorder the routes call. */
    static void bind(Wiring w, Database database, QuarantineStore store, PipelineVersions versions,
                     PipelineMetrics metrics) {
        w.bind("quarantineStore", store);
        w.bind("quarantineQueries", new QuarantineQueries(database.dataSource(),
                SkippedCoverage.of(w.settings().required(SkippedCoverage.PROPERTY))));
        w.bind("quarantineRecorder", new QuarantineRecorder(store, versions, metrics));
    }
}
