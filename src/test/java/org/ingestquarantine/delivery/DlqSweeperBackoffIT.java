package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.quarantine.QuarantineWriteException;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.Test;

/**
 * Ensures a dead-lettered message whose quarantine record PostgreSQL refuses is kept unacknowledged and
 * written again only after a doubling, capped back-off, not at the broker's redelivery pace.
 */
class DlqSweeperBackoffIT extends PostgresTestBase {

    private static final Duration INITIAL = Duration.ofSeconds(30);
    private static final Duration MAX = Duration.ofSeconds(100);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
    private final AtomicInteger keyReads = new AtomicInteger();
    /** A key too large for the quarantine table's btree index: PostgreSQL refuses the row (SQLSTATE 54000). */
    private final String hugeKey = "k".repeat(1_000_000);

    @Test
    void shouldBackOffAfterARefusedRecordAndKeepTheMessage() throws Exception {
        QuarantineStore store = new QuarantineStore(dataSource(), new LocalPayloadStore(dataDirectory.resolve("objects")), clock);
        DlqSweeper sweeper = new DlqSweeper(store, new org.ingestquarantine.ingest.MessageReader(source -> true), broker(), clock, INITIAL, MAX);

        assertThatThrownBy(() -> sweeper.sweep(notAnIngestMessage())).isInstanceOf(QuarantineWriteException.class);
        // redelivered at once: not written again, left in the queue
        assertThatThrownBy(() -> sweeper.sweep(notAnIngestMessage())).isInstanceOf(DlqSweeper.SweepDeferredException.class);
        clock.advance(INITIAL.minusSeconds(1));
        assertThatThrownBy(() -> sweeper.sweep(notAnIngestMessage())).isInstanceOf(DlqSweeper.SweepDeferredException.class);
        clock.advance(Duration.ofSeconds(1));
        assertThatThrownBy(() -> sweeper.sweep(notAnIngestMessage())).isInstanceOf(QuarantineWriteException.class);
        // the second failure waits twice as long
        clock.advance(INITIAL.multipliedBy(2).minusSeconds(1));
        assertThatThrownBy(() -> sweeper.sweep(notAnIngestMessage())).isInstanceOf(DlqSweeper.SweepDeferredException.class);

        assertThat(sweeper.backoff(1)).isEqualTo(INITIAL);
        assertThat(sweeper.backoff(2)).isEqualTo(INITIAL.multipliedBy(2));
        assertThat(sweeper.backoff(3)).isEqualTo(MAX);
        assertThat(sweeper.backoff(50)).isEqualTo(MAX);
    }

    private Exchange notAnIngestMessage() {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.getIn().setBody("not json");
        return exchange;
    }

    private BrokerAdapter broker() {
        return new BrokerAdapter() {
            @Override
            public String deliveryKey(Exchange exchange) {
                keyReads.incrementAndGet();
                return hugeKey;
            }

            @Override
            public int deliveryCount(Exchange exchange) {
                return 1;
            }

            @Override
            public void release(Exchange exchange, Duration delay) {
                throw new UnsupportedOperationException();
            }
        };
    }
}
