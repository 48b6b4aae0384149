package org.ingestquarantine.routes;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.pipeline.IngestMessage;

/** Sends one delivery into the real routes, as the broker's consumer would, and hands back its exchange. */
final class RouteTestSupport {

    /** Properties every route test sets: all route files, the consumers on direct endpoints. */
    static final String ROUTES = "camel.main.routes-include-pattern=file:routes/*.camel.yaml";
    static final String INGEST_FROM = "ingest.from-uri=direct:ingest";
    static final String DLQ_FROM = "dlq.from-uri=direct:dlq-sweeper";

    private RouteTestSupport() {
    }

    /**
     * @param errorClass a class
     * @return an exception the taxonomy puts in that class
     */
    static RuntimeException failure(org.ingestquarantine.failure.ErrorClass errorClass) {
        return switch (errorClass) {
            case TRANSIENT -> new org.ingestquarantine.failure.TransientException("timeout", "the source timed out", null);
            case AMBIGUOUS_PARSE -> new RuntimeException("wrapped", pdfSyntax());
            case RESOURCE_FATAL -> new org.ingestquarantine.delivery.ConsumerDiedException(2, "parse");
            case PERMANENT_INPUT -> new org.ingestquarantine.failure.PermanentInputException("empty", "0 bytes");
            case DOWNSTREAM_CONTRACT -> new org.ingestquarantine.failure.DownstreamContractException("chunk_too_long", "too long");
            case UNCLASSIFIED -> new IllegalArgumentException("a gap in the taxonomy");
            case PIPELINE_FAULT -> new org.apache.camel.component.bean.MethodNotFoundException(Object.class, "pageCont");
        };
    }

    private static Exception pdfSyntax() {
        try {
            var ctor = org.ingestquarantine.parse.PdfSyntaxException.class.getDeclaredConstructor(String.class, Throwable.class);
            ctor.setAccessible(true);
            return ctor.newInstance("missing /Root", null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return a well-formed message body */
    static String message(String docId) {
        return new IngestMessage("docs", docId, java.net.URI.create("file:///srv/docs/" + docId), null, null, null).toJson();
    }

    /**
     * @param context the test's context
     * @param body the message body
     * @param key the delivery key
     * @param count the delivery count the broker reports
     * @return the completed exchange: not failed = the consumer acknowledges it
     */
    static Exchange deliver(CamelContext context, String body, String key, int count) {
        return deliver(context, body, key, count, java.util.Map.of());
    }

    /**
     * @param context the test's context
     * @param body the message body
     * @param key the delivery key
     * @param count the delivery count the broker reports
     * @param headers more headers the doubles read ({@link RouteDoubles#PAUSED}, ...)
     * @return the completed exchange: not failed = the consumer acknowledges it
     */
    static Exchange deliver(CamelContext context, String body, String key, int count,
                            java.util.Map<String, Object> headers) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getIn().setBody(body);
        exchange.getIn().setHeader(RouteDoubles.KEY, key);
        exchange.getIn().setHeader(RouteDoubles.COUNT, count);
        headers.forEach(exchange.getIn()::setHeader);
        try (ProducerTemplate template = context.createProducerTemplate()) {
            return template.send("direct:ingest", exchange);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
