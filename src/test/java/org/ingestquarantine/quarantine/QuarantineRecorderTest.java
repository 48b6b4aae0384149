package org.ingestquarantine.quarantine;

import static org.assertj.core.api.Assertions.assertThat;

import org.ingestquarantine.failure.RemoteCause;
import org.junit.jupiter.api.Test;

/**
 * The record's error message names the root cause first and its classified wrapper only when the wrapper's
 * message adds something; an operator never reads the same text twice.
 */
class QuarantineRecorderTest {

    private static final String NOT_PDF = "neither a %PDF header nor PDF object syntax in the first 1024 bytes;"
            + " the file is not a PDF";

    /** A classified exception of ours, as the parser's are. */
    static final class ClassifiedFailure extends RuntimeException {
        ClassifiedFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static RemoteCause remoteNotPdf() {
        return new RemoteCause("org.ingestquarantine.parse.NotPdfException", NOT_PDF, new StackTraceElement[0]);
    }

    @Test
    void namesTheRootAloneWhenItIsTheClassifiedException() {
        RemoteCause root = remoteNotPdf();
        assertThat(FailureEvidence.rootFirst(root, root)).isEqualTo("NotPdfException: " + NOT_PDF);
    }

    @Test
    void leavesOutAWrapperWhoseMessageIsTheRoots() {
        // a worker's failure rebuilt in this process: the same type and message around its remote root
        RemoteCause root = remoteNotPdf();
        assertThat(FailureEvidence.rootFirst(root, new ClassifiedFailure(NOT_PDF, root)))
                .isEqualTo("NotPdfException: " + NOT_PDF);
    }

    @Test
    void leavesOutAWrapperWhoseMessageHoldsTheRoots() {
        RemoteCause root = remoteNotPdf();
        assertThat(FailureEvidence.rootFirst(root, new ClassifiedFailure("NotPdfException: " + NOT_PDF, root)))
                .isEqualTo("NotPdfException: " + NOT_PDF);
        // new RuntimeException(cause) takes cause.toString() as its message
        assertThat(FailureEvidence.rootFirst(root, new RuntimeException(root)))
                .isEqualTo("NotPdfException: " + NOT_PDF);
    }

    @Test
    void leavesOutAWrapperWithoutMessage() {
        IllegalStateException root = new IllegalStateException("missing /Root");
        assertThat(FailureEvidence.rootFirst(root, new ClassifiedFailure(null, root)))
                .isEqualTo("IllegalStateException: missing /Root");
        // a root without a message: a wrapper that only names it adds nothing either
        NullPointerException bare = new NullPointerException();
        assertThat(FailureEvidence.rootFirst(bare, new RuntimeException(bare)))
                .isEqualTo("NullPointerException: null");
    }

    @Test
    void keepsAWrapperWhoseMessageSaysMore() {
        IllegalStateException root = new IllegalStateException("missing /Root");
        assertThat(FailureEvidence.rootFirst(root, new ClassifiedFailure("page 3 of 9 could not be parsed", root)))
                .isEqualTo("IllegalStateException: missing /Root (in ClassifiedFailure: page 3 of 9 could not be parsed)");
        NullPointerException bare = new NullPointerException();
        assertThat(FailureEvidence.rootFirst(bare, new ClassifiedFailure("parser crashed", bare)))
                .isEqualTo("NullPointerException: null (in ClassifiedFailure: parser crashed)");
    }

    @Test
    void escapesAForeignWrappersMessageAsTheRootsIs() {
        IllegalStateException root = new IllegalStateException("missing /Root");
        assertThat(FailureEvidence.rootFirst(root, new RuntimeException("line one\nline two", root)))
                .isEqualTo("IllegalStateException: missing /Root (in RuntimeException: line one\\nline two)")
                .doesNotContain("\n");
    }
}
