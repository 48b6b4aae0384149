package org.ingestquarantine.quarantine;

import org.ingestquarantine.failure.ErrorClass;

/**
 * Open quarantine records of one source with one error class and reason code.
 *
 * @param errorClass latest error class of the records
 * @param reasonCode latest reason code, or null for records without one
 * @param documents number of open records (one per document)
 */
public record OpenCount(ErrorClass errorClass, String reasonCode, long documents) {
}
