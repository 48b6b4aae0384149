package org.ingestquarantine.ingest.embed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Ensures both forms of Retry-After are read, and what is not one is ignored. */
class RetryAfterTest {

    private static final Instant NOW = Instant.parse("2025-06-01T12:00:00Z");

    @Test
    void shouldReadSecondsAndHttpDates() {
        assertThat(RetryAfter.parse("30", NOW)).contains(Duration.ofSeconds(30));
        assertThat(RetryAfter.parse(" 0 ", NOW)).contains(Duration.ZERO);
        assertThat(RetryAfter.parse("Sun, 01 Jun 2025 12:00:45 GMT", NOW)).contains(Duration.ofSeconds(45));
        assertThat(RetryAfter.parse("Sun, 01 Jun 2025 11:00:00 GMT", NOW)).as("a date past").contains(Duration.ZERO);
    }

    @Test
    void shouldIgnoreWhatIsNotARetryAfter() {
        assertThat(RetryAfter.parse(null, NOW)).isEmpty();
        assertThat(RetryAfter.parse("", NOW)).isEmpty();
        assertThat(RetryAfter.parse("-5", NOW)).isEmpty();
        assertThat(RetryAfter.parse("soon", NOW)).isEmpty();
        assertThat(RetryAfter.parse("99999999999999999999999", NOW)).isEmpty();
    }
}
