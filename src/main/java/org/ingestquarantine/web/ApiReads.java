package org.ingestquarantine.web;

import static org.ingestquarantine.web.ApiInput.integer;

import java.time.Duration;
import java.util.Map;
import org.ingestquarantine.operator.OperatorActions;
import org.ingestquarantine.operator.OperatorRegisters;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.operator.Storms;

/**
 * The {@link OperatorApi}'s {@code GET} routes: stats, cohorts, coverage, overdue, a record and its stack trace, a
 * cohort's records, the unindexable register, drain runs, the actions trail and the storms. Reads only.
 *
 * @param service the questions
 * @param actions the actions trail
 * @param registers the page's lists
 * @param storms the paused sources; null when {@code /api/storms} answers 404
 * @param defaultOverdueAge retention age when {@code /api/overdue} names none
 */
record ApiReads(OperatorService service, OperatorActions actions, OperatorRegisters registers, Storms storms,
                Duration defaultOverdueAge) {

    /**
     * Suffix of a record's stack trace, {@code GET /api/records/<ref>/stack-trace}: a record whose doc_id itself ends
     * so is named by its dlq_id or URL-encoded ({@code %2F} for each {@code /}).
     */
    static final String STACK_TRACE = "/stack-trace";

    /**
     * @param path the path after {@code /api/}
     * @param q the query's parameters
     * @return the answer; null (404) for a path no route reads
     */
    Object get(String path, Map<String, String> q) {
        return switch (path.contains("/") ? path.substring(0, path.indexOf('/')) : path) {
            case "stats" -> service.stats(q.get("source"));
            case "cohorts" -> service.cohorts(q.get("source"), q.get("class"), integer(q.get("limit"), "limit"));
            case "coverage" -> Map.of("sources", service.coverage(), "formula", service.coverageFormula(),
                    "owners", service.sourceOwners());
            case "overdue" -> service.overdue(q.containsKey("older_than_days")
                    ? Duration.ofDays(integer(q.get("older_than_days"), "older_than_days")) : defaultOverdueAge);
            case "records" -> path.startsWith("records/") ? record(path.substring("records/".length()))
                    : path.equals("records") ? cohortRecords(q) : null;
            case "unindexable" -> path.equals("unindexable") ? Map.of("cohorts", registers.unindexable()) : null;
            case "drains" -> path.equals("drains") ? Map.of("runs", registers.drainRuns(integer(q.get("limit"), "limit")))
                    : null;
            case "actions" -> path.equals("actions") ? Map.of("actions", actions.latest(integer(q.get("limit"), "limit")))
                    : null;
            case "storms" -> path.equals("storms") && storms != null ? storms.list(integer(q.get("limit"), "limit"))
                    : null;
            default -> null;
        };
    }

    /** {@code GET /api/records?fingerprint=F[&parser_version=V&class=C&source=S&limit=N]}. */
    private Object cohortRecords(Map<String, String> q) {
        service.requireKnownSource(q.get("source"));
        return registers.cohortRecords(q.get("fingerprint"), q.get("parser_version"), q.get("class"), q.get("source"),
                integer(q.get("limit"), "limit"));
    }

    /** {@code GET /api/records/<ref>} and {@code GET /api/records/<ref>/stack-trace}. */
    private Object record(String rest) {
        if (rest.endsWith(STACK_TRACE) && rest.length() > STACK_TRACE.length()) {
            return service.stackTrace(ApiInput.recordRef(rest.substring(0, rest.length() - STACK_TRACE.length())));
        }
        return service.show(ApiInput.recordRef(rest));
    }
}
