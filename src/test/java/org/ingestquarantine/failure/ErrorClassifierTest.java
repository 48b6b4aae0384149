package org.ingestquarantine.failure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.NoSuchFileException;
import org.ingestquarantine.delivery.ConsumerDiedException;
import org.junit.jupiter.api.Test;

/** Ensures the one exception-to-class mapping walks causes and supertypes and has a stated fallback. */
class ErrorClassifierTest {

    private final ErrorClassifier classifier = ErrorClassifier.standard();

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
    void shouldMatchSubtypesOfAMappedType() {
        assertThat(classifier.classify(new NoSuchFileException("/gone")).errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
        assertThat(classifier.classify(new NoSuchFileException("/gone")).reasonCode()).isEqualTo("not_found");
        assertThat(classifier.classify(new ConsumerDiedException(2, "parse")).errorClass()).isEqualTo(ErrorClass.RESOURCE_FATAL);
    }

    @Test
    void shouldCallAnythingUnmappedUnclassified() {
        assertThat(classifier.classify(new IllegalArgumentException("URI is not hierarchical")).errorClass())
                .isEqualTo(ErrorClass.UNCLASSIFIED);
        assertThat(classifier.classify(new IOException("plain")).errorClass()).isEqualTo(ErrorClass.UNCLASSIFIED);
    }

    @Test
    void shouldAnswerTheOnWhenPredicateForExactlyOneClass() {
        Throwable t = new PermanentInputException("not_pdf", "not a PDF");
        long matching = java.util.Arrays.stream(ErrorClass.values()).filter(c -> classifier.matches(t, c)).count();
        assertThat(matching).isEqualTo(1);
        assertThat(classifier.matches(t, ErrorClass.PERMANENT_INPUT)).isTrue();
    }
}
