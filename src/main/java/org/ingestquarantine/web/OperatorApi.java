package org.ingestquarantine.web;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.operator.ActionChannel;
import org.ingestquarantine.operator.ActionRefusedException;
import org.ingestquarantine.operator.Actor;
import org.ingestquarantine.operator.BadOperatorInputException;
import org.ingestquarantine.operator.CohortSelection;
import org.ingestquarantine.operator.OperatorActions;
import org.ingestquarantine.operator.OperatorLabels;
import org.ingestquarantine.operator.OperatorRegisters;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.operator.SourceCounts;
import org.ingestquarantine.operator.Storms;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's HTTP JSON API over the same service layer as the commands ({@link OperatorHttpServer}: slow
 * clients hold no thread, header and body have deadlines, connections are capped), and the operator page over it
 * ({@link OperatorPage}, at {@code /}). Every {@code /api/} request needs
 * {@code Authorization: Bearer <token>} (401 without it); the page's static files need none and hold no data.
 * Routes, answers as the commands' {@code --json}:
 * <ul>
 *   <li>{@code GET /api/stats[?source=S]}</li>
 *   <li>{@code GET /api/cohorts[?source=S&class=C&limit=N]}</li>
 *   <li>{@code GET /api/coverage}: per source, with the formula and each configured source's owner</li>
 *   <li>{@code GET /api/records/<dlq_id | source/doc_id>} (the name URL-encoded or as a path)</li>
 *   <li>{@code GET /api/records/<ref>/stack-trace}: the record's stack trace, types and frames, messages left out
 *       ({@link org.ingestquarantine.operator.RedactedStackTrace})</li>
 *   <li>{@code GET /api/records?fingerprint=F[&parser_version=V&class=C&source=S&limit=N]}: the open records of a cohort,
 *       oldest first ({@link OperatorRegisters#DEFAULT_RECORD_LIMIT} without a limit; the answer says how many
 *       were cut)</li>
 *   <li>{@code GET /api/unindexable}: the unindexable register</li>
 *   <li>{@code GET /api/drains[?limit=N]}: the last drain runs, newest first
 *       ({@link OperatorRegisters#DEFAULT_DRAIN_RUNS} without a limit)</li>
 *   <li>{@code GET /api/overdue?older_than_days=D}</li>
 *   <li>{@code POST /api/dispose/preview} with a selection {@code {"fingerprint", "parser_version"?, "class"?,
 *       "source"?}}: the open records a dispose would move, per source, and its {@code confirmation}</li>
 *   <li>{@code POST /api/dispose} with the selection, {@code "reason", "owner", "actor", "channel"?} and the
 *       preview's {@code "confirmation"}: moves them ({@link OperatorActions#dispose})</li>
 *   <li>{@code POST /api/drain/preview} with a selection and {@code "limit"} (the canary's size, at most
 *       {@value org.ingestquarantine.operator.CanaryPolicy#MAX_RECORDS_PROPERTY}): what a canary drain would select
 *       and its forecast, and its {@code confirmation}</li>
 *   <li>{@code POST /api/drain} with the selection and limit, {@code "actor", "channel"?} and the preview's
 *       {@code "confirmation"}: runs the canary within the request ({@link OperatorActions#canary}) and answers its
 *       report and trail entry</li>
 *   <li>{@code GET /api/actions[?limit=N]}: the actions trail, newest first
 *       ({@value org.ingestquarantine.operator.ActionTrail#DEFAULT_ACTIONS} without a limit)</li>
 *   <li>{@code POST /api/sources/<source>/count}: lists the source now and records its total ({@code listed});
 *       answers the total as {@code sources count --json}</li>
 *   <li>{@code POST /api/sources/<source>/total} with {@code {"documents": N, "stated_by"?}}: records a stated total
 *       ({@code stated}, by {@value #STATED_BY} or {@code api:<stated_by>}); answers as {@code sources set-total
 *       --json}</li>
 *   <li>{@code GET /api/storms[?limit=N]}: the sources the failure-storm breaker paused, then the latest resumed
 *       pauses, as {@code storm list --json}</li>
 *   <li>{@code POST /api/sources/<source>/resume} with an optional {@code {"resumed_by"}}: resumes a paused source
 *       (by {@value #STATED_BY} or {@code api:<resumed_by>}); answers as {@code storm resume --json}, 400 when the
 *       source is not paused</li>
 * </ul>
 * Durations are ISO-8601 strings in whole seconds with an integer {@code <name>_seconds} beside each, the
 * fraction dropped ({@link OperatorJson}).
 * Status codes: 400 bad input (a malformed record reference or URL encoding too, an unknown {@code class} or
 * {@code source}, an action without {@code actor} or {@code confirmation}), 401 no or wrong token, 404 unknown
 * route or record, 405 wrong method, 409 an action refused as things stand (its confirmation does not match its
 * selection, the selection's count changed since the preview, another canary runs: nothing changed),
 * 500 a listing that failed (a root unreadable, its bound exceeded), 503 database unreachable; errors are {@code {"error": "<one line>"}}. Logs one line per request without
 * query values (they may name documents).
 */
public final class OperatorApi implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OperatorApi.class);

    /**
     * Suffix of a record's stack trace, {@code GET /api/records/<ref>/stack-trace}: a record whose doc_id itself ends
     * so is named by its dlq_id or URL-encoded ({@code %2F} for each {@code /}).
     */
    static final String STACK_TRACE = "/stack-trace";

    /** {@code counted_by} of a total stated through the API without a {@code stated_by}. */
    public static final String STATED_BY = "api";

    private final OperatorHttpServer server;
    private final OperatorService service;
    private final OperatorActions actions;
    private final OperatorRegisters registers;
    private final SourceCounts totals;
    private final Storms storms;
    private final byte[] token;
    private final Duration defaultOverdueAge;

    /**
     * What the API answers from.
     *
     * @param service the questions
     * @param actions the bulk actions (dispose, canary drain) and their trail
     * @param registers the lists the page shows (a cohort's records, unindexable register, drain runs)
     * @param totals the sources' totals: listed now or stated
     * @param storms the sources the failure-storm breaker paused; null: {@code /api/storms} and {@code resume} answer
     *     404
     */
    public record Backend(OperatorService service, OperatorActions actions, OperatorRegisters registers,
                          SourceCounts totals, Storms storms) {
        /** @throws NullPointerException if any part but the storms is missing */
        public Backend {
            Objects.requireNonNull(service, "service");
            Objects.requireNonNull(actions, "actions");
            Objects.requireNonNull(registers, "registers");
            Objects.requireNonNull(totals, "totals");
        }

        /** A backend without the storms' routes. */
        public Backend(OperatorService service, OperatorActions actions, OperatorRegisters registers,
                       SourceCounts totals) {
            this(service, actions, registers, totals, null);
        }
    }

    private OperatorApi(InetSocketAddress address, ApiLimits limits, Backend backend, String token,
                        Duration defaultOverdueAge) throws IOException {
        this.service = backend.service();
        this.actions = backend.actions();
        this.registers = backend.registers();
        this.totals = backend.totals();
        this.storms = backend.storms();
        this.token = token.getBytes(StandardCharsets.UTF_8);
        this.defaultOverdueAge = defaultOverdueAge;
        this.server = OperatorHttpServer.start(address, limits,
                ask -> ask.rawPath().startsWith("/api/") ? handle(ask) : OperatorPage.handle(ask));
    }

    /**
     * Starts the API and the page.
     *
     * @param address where to listen; loopback unless the operator chose otherwise ({@code operator.api-host})
     * @param backend the questions, actions and registers
     * @param token the bearer token every request must carry ({@code operator.api-token}); at least
     *     {@link ApiLimits#minTokenChars()} characters
     * @param defaultOverdueAge retention age when {@code /api/overdue} names none
     * @param limits the server's deadlines and bounds, and the token's least length
     * @return the running API; close it to stop
     * @throws IllegalStateException if the token is blank or too short
     * @throws IOException if the address cannot be bound
     */
    public static OperatorApi start(InetSocketAddress address, Backend backend, String token,
                                    Duration defaultOverdueAge, ApiLimits limits) throws IOException {
        if (token == null || token.isBlank()) {
            throw new IllegalStateException("operator.api-token is not set; set it (e.g. IQ_JAVA_OPTS="
                    + "-Doperator.api-token=...) so that the API can refuse requests without it");
        }
        if (token.trim().length() < limits.minTokenChars()) {
            throw new IllegalStateException("operator.api-token is too short (" + token.trim().length()
                    + " characters); set one of at least " + limits.minTokenChars() + " (operator.api-token-min-chars),"
                    + " e.g. from 'openssl rand -hex 24'");
        }
        return new OperatorApi(address, limits, Objects.requireNonNull(backend, "backend"), token.trim(),
                Objects.requireNonNull(defaultOverdueAge, "defaultOverdueAge"));
    }

    /** @return the bound port */
    public int port() {
        return server.port();
    }

    private HttpAnswer handle(HttpAsk x) {
        int status;
        Object body;
        Map<String, String> headers = Map.of();
        try {
            if (!authorised(x)) {
                headers = Map.of("WWW-Authenticate", "Bearer");
                status = 401;
                body = Map.of("error", "missing or wrong bearer token");
            } else {
                body = route(x);
                status = body == null ? 404 : 200;
                if (body == null) {
                    body = Map.of("error", "no such route; see GET /api/stats, /api/cohorts, /api/coverage,"
                            + " /api/records/<ref>, /api/records/<ref>/stack-trace, /api/records?fingerprint=F, /api/unindexable, /api/drains,"
                            + " /api/overdue, /api/actions, /api/storms, POST /api/dispose/preview, /api/dispose,"
                            + " /api/drain/preview, /api/drain, /api/sources/<source>/count,"
                            + " /api/sources/<source>/total, /api/sources/<source>/resume");
                }
            }
        } catch (MethodNotAllowed e) {
            status = 405;
            body = Map.of("error", e.getMessage());
        } catch (ActionRefusedException e) {
            status = 409;
            body = Map.of("error", e.getMessage());
        } catch (BadOperatorInputException e) {
            status = e.getMessage().startsWith("no quarantine record") ? 404 : 400;
            body = Map.of("error", e.forApi());
        } catch (DatabaseAccessException e) {
            status = 503;
            body = Map.of("error", e.getMessage());
        } catch (SourceCounts.ListingFailedException e) {
            status = 500;
            body = Map.of("error", e.getMessage());
        } catch (RuntimeException e) {
            status = 500;
            body = Map.of("error", e.getClass().getSimpleName());
            LOG.warn("operator API {} {} failed: {}", x.method(), routeOf(x), e.getClass().getName());
        }
        byte[] bytes = OperatorJson.write(body).getBytes(StandardCharsets.UTF_8);
        LOG.info("operator API {} {} -> {}", x.method(), routeOf(x), status);
        return new HttpAnswer(status, "application/json", bytes, headers);
    }

    /**
     * @return the request's route without what follows it (record names, source names: they may name documents);
     *     an action's preview as such
     */
    private static String routeOf(HttpAsk x) {
        return x.rawPath().replaceFirst("^(/api/(?:dispose|drain)/preview|/api/[^/]*).*$", "$1");
    }

    private boolean authorised(HttpAsk x) {
        String header = x.header().apply("Authorization");
        // the scheme's name is case-insensitive (RFC 9110 §11.1): "bearer" is "Bearer"
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, "Bearer ".length())) {
            return false;
        }
        return MessageDigest.isEqual(token, header.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8));
    }

    private Object route(HttpAsk x) {
        String path = x.rawPath().substring("/api/".length());
        Map<String, String> q = query(x.rawQuery());
        if (path.equals("dispose") || path.equals("drain") || path.endsWith("/preview")) {
            requireMethod(x, "POST");
            return act(path, body(x));
        }
        if (path.startsWith("sources/")) {
            return sources(x, path.substring("sources/".length()));
        }
        requireMethod(x, "GET");
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
            return service.stackTrace(recordRef(rest.substring(0, rest.length() - STACK_TRACE.length())));
        }
        return service.show(recordRef(rest));
    }

    /**
     * The two steps of a bulk action: {@code POST /api/dispose/preview} and {@code /api/dispose},
     * {@code /api/drain/preview} and {@code /api/drain}; null (404) for any other path.
     */
    private Object act(String path, JsonNode body) {
        boolean drain = path.startsWith("drain");
        CohortSelection selection = new CohortSelection(text(body, "fingerprint"), text(body, "parser_version"),
                text(body, "class"), text(body, "source"), drain ? whole(body, "limit") : null);
        selection.check();
        service.requireKnownSource(selection.source());
        return switch (path) {
            case "dispose/preview" -> actions.previewDispose(selection);
            case "drain/preview" -> actions.previewCanary(selection);
            case "dispose" -> {
                var entry = actions.dispose(actor(body), selection, text(body, "reason"), text(body, "owner"),
                        text(body, "confirmation"));
                Map<String, Object> answer = new java.util.LinkedHashMap<>();
                answer.put("unindexable", entry.selected());
                answer.put("action", entry);
                yield answer;
            }
            case "drain" -> actions.canary(actor(body), selection, text(body, "confirmation"));
            default -> null;
        };
    }

    /** @return the actor the body states, through the channel it states ({@code api} unless {@code page}) */
    private static Actor actor(JsonNode body) {
        String channel = text(body, "channel");
        if (channel != null && !channel.equals(ActionChannel.API.code()) && !channel.equals(ActionChannel.PAGE.code())) {
            throw new BadOperatorInputException("channel must be " + ActionChannel.API.code() + " or "
                    + ActionChannel.PAGE.code() + " (or left out: " + ActionChannel.API.code() + ")");
        }
        return new Actor(text(body, "actor"), ActionChannel.PAGE.code().equals(channel) ? ActionChannel.PAGE
                : ActionChannel.API);
    }

    /** @return the body's whole number {@code field}, or null when it has none */
    private static Integer whole(JsonNode body, String field) {
        JsonNode v = body == null ? null : body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new BadOperatorInputException(field + " must be a whole number");
        }
        return v.intValue();
    }

    /** {@code POST /api/sources/<source>/count}, {@code .../total} and {@code .../resume}; null (404) for any other path. */
    private Object sources(HttpAsk x, String rest) {
        int slash = rest.lastIndexOf('/');
        String action = slash < 0 ? "" : rest.substring(slash + 1);
        if (slash <= 0 || !action.equals("count") && !action.equals("total")
                && !(action.equals("resume") && storms != null)) {
            return null;
        }
        requireMethod(x, "POST");
        String source = name(rest.substring(0, slash), "the source name");
        if (action.equals("count")) {
            return totals.count(source);
        }
        if (action.equals("resume")) {
            String by = x.body().length == 0 ? null : text(body(x), "resumed_by");
            return Map.of("resumed", storms.resume(source, by == null ? STATED_BY : STATED_BY + ":" + by));
        }
        JsonNode body = body(x);
        JsonNode documents = body == null ? null : body.get("documents");
        if (documents == null || !documents.isIntegralNumber() || !documents.canConvertToLong()) {
            throw new BadOperatorInputException("give the total as {\"documents\": N}, N a whole number of documents");
        }
        String by = text(body, "stated_by");
        return totals.state(source, documents.asLong(), by == null ? STATED_BY : STATED_BY + ":" + by);
    }

    private static JsonNode body(HttpAsk x) {
        try {
            return OperatorJson.MAPPER.readTree(x.body());
        } catch (IOException e) {
            throw new BadOperatorInputException("the body is not JSON");
        }
    }

    /**
     * @param raw the URL-encoded reference after {@code /api/records/}
     * @return it decoded
     * @throws BadOperatorInputException (400) if it is empty or not valid URL encoding
     */
    private static String recordRef(String raw) {
        if (raw.isEmpty()) {
            throw new BadOperatorInputException("name a record: /api/records/<dlq_id | source/doc_id>");
        }
        return decode(raw, "the record reference");
    }

    private static String decode(String raw, String what) {
        try {
            return URLDecoder.decode(raw, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new BadOperatorInputException(what + " is not valid URL encoding (a % must be followed by two hex"
                    + " digits, e.g. %2F for /)");
        }
    }

    /** @return {@code raw} decoded, printable ({@link #printableOnly}) */
    private static String name(String raw, String what) {
        return printableOnly(decode(raw, what), what);
    }

    private static String text(JsonNode body, String field) {
        JsonNode v = body == null ? null : body.get(field);
        return v == null || v.isNull() ? null : printableOnly(v.asText(), "\"" + field + "\"");
    }

    /**
     * @return {@code value}
     * @throws BadOperatorInputException (400) if it holds a control character (a NUL, a newline...): no name,
     *     fingerprint or label the API takes has one, and PostgreSQL cannot even hold a NUL
     */
    private static String printableOnly(String value, String what) {
        if (!value.equals(OperatorLabels.printable(value))) {
            throw new BadOperatorInputException(what + " holds a control character (e.g. %00 or a newline); names,"
                    + " fingerprints and labels are printable text");
        }
        return value;
    }

    private static Integer integer(String value, String name) {
        if (value == null) {
            return null;
        }
        try {
            return Integer.valueOf(value.trim());
        } catch (NumberFormatException e) {
            throw new BadOperatorInputException(name + " must be a whole number");
        }
    }

    private static void requireMethod(HttpAsk x, String method) {
        if (!method.equals(x.method())) {
            throw new MethodNotAllowed(x.method() + " is not allowed here; use " + method);
        }
    }

    private static final class MethodNotAllowed extends RuntimeException {
        MethodNotAllowed(String message) {
            super(message);
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw == null) {
            return q;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                String key = name(pair.substring(0, eq), "a query parameter's name");
                q.put(key, name(pair.substring(eq + 1), "query parameter " + key));
            }
        }
        return q;
    }

    /** Stops accepting requests and waits up to 1 s for those in flight. */
    @Override
    public void close() {
        server.close();
    }
}
