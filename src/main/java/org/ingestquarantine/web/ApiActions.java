package org.ingestquarantine.web;

import static org.ingestquarantine.web.ApiInput.actor;
import static org.ingestquarantine.web.ApiInput.text;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ingestquarantine.operator.CohortSelection;
import org.ingestquarantine.operator.OperatorActions;
import org.ingestquarantine.operator.OperatorService;

/**
 * The {@link OperatorApi}'s bulk actions, each in two steps: {@code POST /api/dispose/preview} and
 * {@code /api/dispose}, {@code /api/drain/preview} and {@code /api/drain} (a canary, run within the request).
 *
 * @param service checks a selection's source
 * @param actions the bulk actions
 */
record ApiActions(OperatorService service, OperatorActions actions) {

    /**
     * @param path the path after {@code /api/}
     * @param body the request's JSON body
     * @return the answer; null (404) for any other path
     */
    Object post(String path, JsonNode body) {
        boolean drain = path.startsWith("drain");
        CohortSelection selection = new CohortSelection(text(body, "fingerprint"), text(body, "parser_version"),
                text(body, "class"), text(body, "source"), drain ? ApiInput.whole(body, "limit") : null);
        selection.check();
        service.requireKnownSource(selection.source());
        return switch (path) {
            case "dispose/preview" -> actions.previewDispose(selection);
            case "drain/preview" -> actions.previewCanary(selection);
            case "dispose" -> {
                var entry = actions.dispose(actor(body), selection, text(body, "reason"), text(body, "owner"),
                        text(body, "confirmation"));
                Map<String, Object> answer = new LinkedHashMap<>();
                answer.put("unindexable", entry.selected());
                answer.put("action", entry);
                yield answer;
            }
            case "drain" -> actions.canary(actor(body), selection, text(body, "confirmation"));
            default -> null;
        };
    }
}
