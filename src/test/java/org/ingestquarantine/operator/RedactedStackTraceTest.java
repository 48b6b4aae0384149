package org.ingestquarantine.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** Ensures a stored stack trace reaches the operator with its types and frames and without any exception message. */
class RedactedStackTraceTest {

    /** Document text a parser's messages may quote. */
    private static final String TEXT = "Lessee shall return the premises broom-clean";

    @Test
    void shouldKeepTypesAndFramesAndLeaveEveryMessageOut() {
        IOException root = new IOException("Unknown operator '" + TEXT + "'\n\tat the premises (broom-clean)\nline three");
        IllegalStateException wrapper = new IllegalStateException("parse failed: " + TEXT, root);
        wrapper.addSuppressed(new UnsupportedOperationException(TEXT));
        String printed = printed(wrapper);
        assertThat(printed).as("the stored trace holds the messages").contains(TEXT);

        String shown = RedactedStackTrace.of(printed);

        assertThat(shown).doesNotContain(TEXT).doesNotContain("Unknown operator").doesNotContain("line three")
                .doesNotContain("premises");
        assertThat(shown.lines().findFirst()).contains("java.lang.IllegalStateException: " + RedactedStackTrace.MESSAGE_LEFT_OUT);
        assertThat(shown).contains("\tSuppressed: java.lang.UnsupportedOperationException: " + RedactedStackTrace.MESSAGE_LEFT_OUT + "\n")
                .contains("Caused by: java.io.IOException: " + RedactedStackTrace.MESSAGE_LEFT_OUT + "\n")
                .containsPattern("\n\tat org\\.ingestquarantine\\.operator\\.RedactedStackTraceTest\\."
                        + "shouldKeepTypesAndFramesAndLeaveEveryMessageOut\\(RedactedStackTraceTest\\.java:\\d+\\)\n")
                .containsPattern("\n\t+\\.\\.\\. \\d+ more\n");
        assertThat(shown.lines().filter(l -> l.matches("\t+at .*")).count()).as("every frame kept")
                .isEqualTo(printed.lines().filter(l -> l.matches("\t+at \\S+\\(.*\\)")).count());
    }

    @Test
    void shouldShowATypeWithoutMessageAsItIsAndHideAToStringThatIsNoTypeName() {
        Exception bare = new IllegalArgumentException();
        assertThat(RedactedStackTrace.of(printed(bare)).lines().findFirst()).contains("java.lang.IllegalArgumentException");
        Exception custom = new Exception(TEXT) {
            @Override
            public String toString() {
                return "Lessee: " + getMessage();
            }
        };
        String shown = RedactedStackTrace.of(printed(custom));
        assertThat(shown).doesNotContain("Lessee").startsWith(RedactedStackTrace.TYPE_NOT_SHOWN + "\n");
    }

    @Test
    void shouldNameACircularCauseByItsTypeOnly() {
        IllegalStateException a = new IllegalStateException(TEXT);
        IOException b = new IOException(TEXT, a);
        a.initCause(b);
        String shown = RedactedStackTrace.of(printed(a));
        assertThat(shown).doesNotContain(TEXT)
                .contains("[CIRCULAR REFERENCE: java.lang.IllegalStateException: " + RedactedStackTrace.MESSAGE_LEFT_OUT + "]");
    }

    private static String printed(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
