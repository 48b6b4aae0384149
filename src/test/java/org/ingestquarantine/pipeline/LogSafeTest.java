package org.ingestquarantine.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Ensures an untrusted identity reaches a log line escaped and bounded. */
class LogSafeTest {

    @Test
    void shouldEscapeControlAndInvisibleCharacters() {
        assertThat(LogSafe.identity("a\nb\r\tc\u001b[31md\u0000e\u0085f\u202eg\u2028h\\i"))
                .isEqualTo("a\\nb\\r\\tc\\u001B[31md\\u0000e\\u0085f\\u202Eg\\u2028h\\\\i");
    }

    @Test
    void shouldKeepOrdinaryTextAsItIs() {
        assertThat(LogSafe.identity("reports/2026/été.pdf")).isEqualTo("reports/2026/été.pdf");
        assertThat(LogSafe.identity(null)).isEqualTo("null");
    }

    @Test
    void shouldBoundALongValueAndSayHowLongItWas() {
        String bounded = LogSafe.identity("x".repeat(5_000_000));
        assertThat(bounded).startsWith("x".repeat(LogSafe.MAX_CHARS)).endsWith("…(5000000 chars)")
                .hasSize(LogSafe.MAX_CHARS + "…(5000000 chars)".length());
    }

    @Test
    void shouldNotSplitASurrogatePairWhenTruncating() {
        String value = "x".repeat(LogSafe.MAX_CHARS - 1) + "😀" + "tail";
        assertThat(LogSafe.identity(value)).doesNotContain("\\u").startsWith("x".repeat(LogSafe.MAX_CHARS - 1) + "…");
    }
}
