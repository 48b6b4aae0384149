package org.ingestquarantine.pipeline;

import java.net.URI;
import java.util.Locale;
import java.util.Map;

/**
 * The versions of the code that handled a document, stored on every index and evidence record so that
 * a replay months later can tell whether the code or the bytes changed.
 *
 * @param connectors each source connector's version, by the URI scheme it serves
 * @param parser the parser's version (PDFBox and our extraction rules)
 * @param chunker the chunker's name and version
 * @param embedder the embedding model's name and version
 */
public record PipelineVersions(Map<String, String> connectors, String parser, String chunker, String embedder) {

    public PipelineVersions {
        connectors = Map.copyOf(connectors);
    }

    /**
     * @param uri a document's URI, may be {@code null} (a message that could not be read)
     * @return the version of the connector that serves it, or {@code null} when none does
     */
    public String connectorFor(URI uri) {
        if (uri == null || uri.getScheme() == null) {
            return null;
        }
        return connectors.get(uri.getScheme().toLowerCase(Locale.ROOT));
    }
}
