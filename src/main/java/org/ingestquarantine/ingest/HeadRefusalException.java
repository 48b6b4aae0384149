package org.ingestquarantine.ingest;

import org.ingestquarantine.failure.PermanentInputException;

/**
 * A document refused from what its source's HEAD said (empty, over the size limit), before any byte was
 * read; it carries that answer so the evidence record keeps the ETag and Last-Modified the decision saw.
 */
public final class HeadRefusalException extends PermanentInputException {

    private final transient SourceHead head;

    /**
     * @param reasonCode the reason, e.g. {@code too_large}
     * @param message what was refused, no document text
     * @param head the source's answer
     */
    public HeadRefusalException(String reasonCode, String message, SourceHead head) {
        super(reasonCode, message);
        this.head = head;
    }

    /** @return what the source said of the document */
    public SourceHead head() {
        return head;
    }
}
