package org.ingestquarantine.testsupport;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.builder.AdviceWith;
import org.ingestquarantine.db.EmbeddedPostgresService;

/** Takes the database away under a pipeline's quarantine record statements: the route's first runs fail to write. */
public final class QuarantineWriteOutage {

    private QuarantineWriteOutage() {
    }

    /**
     * Advises the {@code quarantine} route so that each of its first {@code outages} runs stops PostgreSQL before the
     * record's statement (the test starts it again).
     *
     * @param pipeline a started pipeline
     * @param outages how many of the route's first runs stop the database
     * @return the route's runs so far, counted as they start
     * @throws Exception if the route cannot be advised
     */
    public static AtomicInteger stopDatabaseAtFirstWrites(TestPipeline pipeline, int outages) throws Exception {
        EmbeddedPostgresService postgres = pipeline.postgres();
        AtomicInteger runs = new AtomicInteger();
        AdviceWith.adviceWith(pipeline.app().context(), "quarantine", a -> a.weaveAddFirst().process(exchange -> {
            if (runs.incrementAndGet() <= outages) {
                postgres.stop();
            }
        }));
        return runs;
    }
}
