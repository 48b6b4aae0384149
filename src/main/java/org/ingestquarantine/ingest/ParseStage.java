package org.ingestquarantine.ingest;

import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.ParseException;
import org.ingestquarantine.parse.ParsedDocument;

/** Hands the fetched bytes to the (sandboxed) parser. */
public final class ParseStage {

    private final DocumentParser parser;

    /** @param parser the parser, normally the worker pool */
    public ParseStage(DocumentParser parser) {
        this.parser = parser;
    }

    /**
     * @param fetched the fetched document
     * @return its pages' text
     * @throws ParseException classified by its type: not_pdf, encrypted, no_text_layer, limits,
     *     parse_error, or a parser crash
     */
    public ParsedDocument parse(FetchedDocument fetched) throws ParseException {
        return parser.parse(fetched.file());
    }
}
