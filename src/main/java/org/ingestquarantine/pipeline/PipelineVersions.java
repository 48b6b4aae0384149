package org.ingestquarantine.pipeline;

/**
 * The versions of the code that handled a document, stored on every index and evidence record so that
 * a replay months later can tell whether the code or the bytes changed.
 *
 * @param connector the source connector's version
 * @param parser the parser's version (PDFBox and our extraction rules)
 * @param chunker the chunker's name and version
 * @param embedder the embedding model's name and version
 */
public record PipelineVersions(String connector, String parser, String chunker, String embedder) {
}
