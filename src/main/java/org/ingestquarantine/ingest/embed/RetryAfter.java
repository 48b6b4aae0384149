package org.ingestquarantine.ingest.embed;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Reads an HTTP {@code Retry-After} header (RFC 9110 section 10.2.3): delay-seconds or an HTTP-date. */
final class RetryAfter {

    private RetryAfter() {
    }

    /**
     * @param value the header's value, may be {@code null}
     * @param now the time an HTTP-date is measured from
     * @return the wait it asks for (zero for a date already past); empty when absent or unreadable
     */
    static Optional<Duration> parse(String value, Instant now) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String v = value.trim();
        if (v.chars().allMatch(Character::isDigit)) {
            try {
                return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
            } catch (NumberFormatException e) {
                return Optional.empty(); // more digits than a long holds
            }
        }
        try {
            Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration wait = Duration.between(now, at);
            return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
