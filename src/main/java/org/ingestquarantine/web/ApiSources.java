package org.ingestquarantine.web;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.ingestquarantine.operator.BadOperatorInputException;
import org.ingestquarantine.operator.SourceCounts;
import org.ingestquarantine.operator.Storms;

/**
 * The {@link OperatorApi}'s source routes: {@code POST /api/sources/<source>/count} (list it now),
 * {@code .../total} (a stated total) and {@code .../resume} (a source the failure-storm breaker paused).
 *
 * @param totals the sources' totals
 * @param storms the paused sources; null when {@code resume} answers 404
 */
record ApiSources(SourceCounts totals, Storms storms) {

    /**
     * @param rest the path after {@code /api/sources/}
     * @return the answer; null (404) for any other path
     */
    Object handle(HttpAsk x, String rest) {
        int slash = rest.lastIndexOf('/');
        String action = slash < 0 ? "" : rest.substring(slash + 1);
        if (slash <= 0 || !action.equals("count") && !action.equals("total")
                && !(action.equals("resume") && storms != null)) {
            return null;
        }
        ApiInput.requireMethod(x, "POST");
        String source = ApiInput.name(rest.substring(0, slash), "the source name");
        if (action.equals("count")) {
            return totals.count(source);
        }
        if (action.equals("resume")) {
            String by = x.body().length == 0 ? null : ApiInput.text(ApiInput.body(x), "resumed_by");
            return Map.of("resumed", storms.resume(source, by == null ? OperatorApi.STATED_BY
                    : OperatorApi.STATED_BY + ":" + by));
        }
        JsonNode body = ApiInput.body(x);
        JsonNode documents = body == null ? null : body.get("documents");
        if (documents == null || !documents.isIntegralNumber() || !documents.canConvertToLong()) {
            throw new BadOperatorInputException("give the total as {\"documents\": N}, N a whole number of documents");
        }
        String by = ApiInput.text(body, "stated_by");
        return totals.state(source, documents.asLong(), by == null ? OperatorApi.STATED_BY
                : OperatorApi.STATED_BY + ":" + by);
    }
}
