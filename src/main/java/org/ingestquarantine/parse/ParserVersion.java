package org.ingestquarantine.parse;

import org.apache.pdfbox.util.Version;

/**
 * The version of the parse stage stored as {@code parser_version} on every quarantine record, so a replay
 * can tell whether the parser changed. It combines PDFBox's own version with our revision of the code
 * around it, e.g. {@code pdfbox-3.0.6+iq-parse-1}.
 */
public final class ParserVersion {

    /** Our revision of the parse package; bump it when a change can alter any document's outcome. */
    public static final int REVISION = 2;

    /** The version string of the parser in this build. */
    public static final String CURRENT = "pdfbox-" + pdfboxVersion() + "+iq-parse-" + REVISION;

    private ParserVersion() {
    }

    private static String pdfboxVersion() {
        String version = Version.getVersion();
        return version == null || version.isBlank() ? "unknown" : version.trim();
    }
}
