package org.ingestquarantine.parse;

import java.nio.file.Path;

/** Reduces a parse to one word for assertions: {@code indexed}, or the failure's reason code. */
final class Outcome {

    private Outcome() {
    }

    static String of(DocumentParser parser, Path pdf) {
        try {
            ParsedDocument document = parser.parse(pdf);
            return document.nonWhitespaceChars() > 0 ? SampleSet.INDEXED : "indexed-without-text";
        } catch (ParseException e) {
            return e.reasonCode();
        }
    }
}
