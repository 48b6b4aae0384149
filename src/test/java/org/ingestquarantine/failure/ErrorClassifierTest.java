package org.ingestquarantine.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Ensures the classifier walks causes and supertypes, lets SQLSTATE rules decide first, and has a stated fallback. */
class ErrorClassifierTest {

    private final ErrorClassifier classifier = ErrorClassifier.builder()
            .sqlState("08", ErrorClass.TRANSIENT, "db_unavailable")
            .type(PermanentInputException.class, ErrorClass.PERMANENT_INPUT, "invalid_input")
            .type(IOException.class, ErrorClass.TRANSIENT, "io")
            .type(ConnectException.class, ErrorClass.TRANSIENT, "connection_refused")
            .type(SQLException.class, ErrorClass.TRANSIENT, "db_error")
            .build();

    @Test
    void shouldSayWhetherATypeRuleDecidesOnAType() {
        ErrorClassifier withWrapper = ErrorClassifier.builder()
                .type(PermanentInputException.class, ErrorClass.PERMANENT_INPUT, "invalid_input")
                .wrapperType(IllegalStateException.class, ErrorClass.PIPELINE_FAULT, "expression_failed").build();

        assertThat(withWrapper.hasTypeRule(PermanentInputException.class)).isTrue();
        assertThat(withWrapper.hasTypeRule(new PermanentInputException("x", "y") { }.getClass())).as("a subtype").isTrue();
        assertThat(withWrapper.hasTypeRule(IllegalStateException.class)).as("a wrapper rule is not one").isFalse();
        assertThat(withWrapper.hasTypeRule(RuntimeException.class)).isFalse();
    }

    @Test
    void shouldUseTheReasonOfOurOwnExceptions() {
        Classification c = classifier.classify(new PermanentInputException("too_large", "over the limit"));
        assertThat(c.errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
        assertThat(c.reasonCode()).isEqualTo("too_large");
    }

    @Test
    void shouldFindAMappedCauseInsideAnUnmappedWrapper() {
        Throwable wrapped = new RuntimeException("camel wrapper", new UncheckedIOException(new ConnectException("refused")));
        Classification c = classifier.classify(wrapped);
        assertThat(c.errorClass()).isEqualTo(ErrorClass.TRANSIENT);
        assertThat(c.reasonCode()).isEqualTo("connection_refused");
    }

    @Test
    void shouldPreferTheMostSpecificTypeOfTheOutermostMappedException() {
        assertThat(classifier.classify(new java.nio.file.NoSuchFileException("/gone")).reasonCode()).isEqualTo("io");
        assertThat(classifier.classify(new ConnectException("refused")).reasonCode()).isEqualTo("connection_refused");
    }

    @Test
    void shouldLetASqlStateRuleDecideBeforeTypes() {
        Throwable t = new PermanentInputException("x", "wrapper") {
        };
        t.initCause(new SQLException("gone", "08006"));
        assertThat(classifier.classify(t).reasonCode()).isEqualTo("db_unavailable");
        assertThat(classifier.classify(new SQLException("odd", "XX000")).reasonCode()).isEqualTo("db_error");
    }

    @Test
    void shouldCallAnythingUnmappedUnclassified() {
        Classification c = classifier.classify(new IllegalArgumentException("URI is not hierarchical"));
        assertThat(c.errorClass()).isEqualTo(ErrorClass.UNCLASSIFIED);
        assertThat(c.reasonCode()).isEqualTo(Classification.UNKNOWN_REASON);
    }

    @Test
    void shouldSurviveACauseCycle() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertThat(classifier.classify(a).errorClass()).isEqualTo(ErrorClass.UNCLASSIFIED);
    }

    @Test
    void shouldRefuseTwoRulesForOneType() {
        assertThatThrownBy(() -> ErrorClassifier.builder().type(IOException.class, ErrorClass.TRANSIENT, "a")
                .type(IOException.class, ErrorClass.TRANSIENT, "b")).isInstanceOf(IllegalArgumentException.class);
    }
}
