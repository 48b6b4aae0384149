package org.ingestquarantine.ingest;

import org.apache.camel.Exchange;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.ParseException;
import org.ingestquarantine.parse.ParsedDocument;
import org.ingestquarantine.pipeline.PipelineKeys;

/** Hands the fetched bytes to the (sandboxed) parser and keeps its result on the exchange. */
public final class ParseStage {

    private final DocumentParser parser;

    /** @param parser the parser, normally the worker pool */
    public ParseStage(DocumentParser parser) {
        this.parser = parser;
    }

    /**
     * @param exchange the delivery, with {@link PipelineKeys#FETCHED}
     * @throws ParseException classified by its type: not_pdf, encrypted, no_text_layer, limits,
     *     parse_error, or a parser crash
     */
    public void parse(Exchange exchange) throws ParseException {
        FetchedDocument fetched = exchange.getProperty(PipelineKeys.FETCHED, FetchedDocument.class);
        ParsedDocument parsed = parser.parse(fetched.file());
        exchange.setProperty(PipelineKeys.PARSED, parsed);
    }
}
