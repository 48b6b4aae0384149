package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.ingestquarantine.db.DatabaseAccessException;
import org.junit.jupiter.api.Test;

/**
 * Ensures routes/failure.camel.yaml holds the consumer when the database is the cause, and releases or
 * quarantines by the disposition.
 */
class FailureRouteTest extends RouteTestBase {

    @Test
    void shouldHoldTheConsumerWhenTheDatabaseIsUnreachable() {
        stages.failAt("index", new DatabaseAccessException("index write failed", new SQLException("gone", "08006")));
        assertThat(deliver(1).isFailed()).isTrue();
        assertThat(breaker.isOpen()).isTrue();
        assertThat(outcomes.closed).containsExactly("k1=released");
    }

    @Test
    void shouldNotHoldTheConsumerForAFailureOfTheDocument() {
        stages.failAt("parse", RouteTestSupport.failure(org.ingestquarantine.failure.ErrorClass.AMBIGUOUS_PARSE));
        deliver(1);
        assertThat(breaker.isOpen()).isFalse();
    }
}
