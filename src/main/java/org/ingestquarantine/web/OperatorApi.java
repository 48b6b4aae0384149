package org.ingestquarantine.web;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.operator.ActionRefusedException;
import org.ingestquarantine.operator.BadOperatorInputException;
import org.ingestquarantine.operator.OperatorActions;
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
 *
 * <p>The routes: {@link ApiReads} ({@code GET}), {@link ApiActions} (dispose, canary drain), {@link ApiSources}
 * (a source's count, total, resume); what a request says: {@link ApiInput}.
 */
public final class OperatorApi implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OperatorApi.class);

    /** {@code counted_by} of a total stated through the API without a {@code stated_by}. */
    public static final String STATED_BY = "api";

    private final OperatorHttpServer server;
    private final ApiReads reads;
    private final ApiActions actions;
    private final ApiSources sources;
    private final byte[] token;

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
        this.reads = new ApiReads(backend.service(), backend.actions(), backend.registers(), backend.storms(),
                defaultOverdueAge);
        this.actions = new ApiActions(backend.service(), backend.actions());
        this.sources = new ApiSources(backend.totals(), backend.storms());
        this.token = token.getBytes(StandardCharsets.UTF_8);
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
        } catch (ApiInput.MethodNotAllowed e) {
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
        Map<String, String> q = ApiInput.query(x.rawQuery());
        if (path.equals("dispose") || path.equals("drain") || path.endsWith("/preview")) {
            ApiInput.requireMethod(x, "POST");
            return actions.post(path, ApiInput.body(x));
        }
        if (path.startsWith("sources/")) {
            return sources.handle(x, path.substring("sources/".length()));
        }
        ApiInput.requireMethod(x, "GET");
        return reads.get(path, q);
    }

    /** Stops accepting requests and waits up to 1 s for those in flight. */
    @Override
    public void close() {
        server.close();
    }
}
