package org.ingestquarantine.failure;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Maps an exception to its {@link ErrorClass}: the one place where that mapping lives.
 *
 * <p>The cause chain is walked from the outermost exception inwards; for each exception its type and
 * then its supertypes are looked up in the mapping, and the first hit decides. Anything unmapped is
 * {@link ErrorClass#UNCLASSIFIED}, a gap in the taxonomy that alerts. The reason code comes from the
 * deciding exception when it is {@link Reasoned}, else from the mapping's default reason.
 *
 * <p>Types are named by class name so that the classifier does not need every connector or parser on
 * its classpath; a name that is not loadable simply never matches.
 */
public final class ErrorClassifier {

    private record Rule(ErrorClass errorClass, String reason) {
    }

    private final Map<String, Rule> rules;

    private ErrorClassifier(Map<String, Rule> rules) {
        this.rules = Collections.unmodifiableMap(rules);
    }

    /** @return the product's mapping, see the table in DESIGN.md §2 */
    public static ErrorClassifier standard() {
        Map<String, Rule> m = new LinkedHashMap<>();
        // permanent_input: the input itself
        m.put("org.ingestquarantine.parse.NotPdfException", new Rule(ErrorClass.PERMANENT_INPUT, "not_pdf"));
        m.put("org.ingestquarantine.parse.EncryptedPdfException", new Rule(ErrorClass.PERMANENT_INPUT, "encrypted"));
        m.put("org.ingestquarantine.parse.NoTextLayerException", new Rule(ErrorClass.PERMANENT_INPUT, "no_text_layer"));
        m.put("org.ingestquarantine.parse.ParseLimitException", new Rule(ErrorClass.PERMANENT_INPUT, "limit"));
        m.put("org.ingestquarantine.failure.PermanentInputException", new Rule(ErrorClass.PERMANENT_INPUT, "invalid_input"));
        m.put(NoSuchFileException.class.getName(), new Rule(ErrorClass.PERMANENT_INPUT, "not_found"));
        m.put(AccessDeniedException.class.getName(), new Rule(ErrorClass.PERMANENT_INPUT, "unreadable"));
        // ambiguous_parse: the parser threw for a reason it cannot name
        m.put("org.ingestquarantine.parse.PdfSyntaxException", new Rule(ErrorClass.AMBIGUOUS_PARSE, "parse_error"));
        // resource_fatal: a process died
        m.put("org.ingestquarantine.parse.ParserCrashedException", new Rule(ErrorClass.RESOURCE_FATAL, "worker_crash"));
        m.put("org.ingestquarantine.delivery.ConsumerDiedException", new Rule(ErrorClass.RESOURCE_FATAL, "consumer_died"));
        // downstream_contract: our own output broke a contract
        m.put("org.ingestquarantine.failure.DownstreamContractException", new Rule(ErrorClass.DOWNSTREAM_CONTRACT, "contract"));
        // transient: waiting can help
        m.put("org.ingestquarantine.failure.TransientException", new Rule(ErrorClass.TRANSIENT, "transient"));
        m.put("org.ingestquarantine.quarantine.QuarantineWriteException", new Rule(ErrorClass.TRANSIENT, "quarantine_unavailable"));
        m.put("org.ingestquarantine.db.DatabaseUnavailableException", new Rule(ErrorClass.TRANSIENT, "db_unavailable"));
        m.put("org.ingestquarantine.db.DatabaseAccessException", new Rule(ErrorClass.TRANSIENT, "db_error"));
        m.put(SQLTransientException.class.getName(), new Rule(ErrorClass.TRANSIENT, "db_unavailable"));
        m.put(SQLException.class.getName(), new Rule(ErrorClass.TRANSIENT, "db_error"));
        m.put(ConnectException.class.getName(), new Rule(ErrorClass.TRANSIENT, "connection_refused"));
        m.put(SocketTimeoutException.class.getName(), new Rule(ErrorClass.TRANSIENT, "timeout"));
        m.put("java.net.http.HttpTimeoutException", new Rule(ErrorClass.TRANSIENT, "timeout"));
        m.put("software.amazon.awssdk.core.exception.SdkClientException", new Rule(ErrorClass.TRANSIENT, "broker_unavailable"));
        return new ErrorClassifier(m);
    }

    /**
     * @param failure the exception that ended an attempt, never {@code null}
     * @return its class and reason
     */
    public Classification classify(Throwable failure) {
        Classification bySqlState = classifySqlState(failure);
        if (bySqlState != null) {
            return bySqlState;
        }
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            for (Class<?> type = t.getClass(); type != null; type = type.getSuperclass()) {
                Rule rule = rules.get(type.getName());
                if (rule != null) {
                    String reason = t instanceof Reasoned r && r.reasonCode() != null ? r.reasonCode() : rule.reason();
                    return new Classification(rule.errorClass(), reason, t);
                }
            }
        }
        String reason = failure instanceof Reasoned r && r.reasonCode() != null ? r.reasonCode() : Classification.UNKNOWN_REASON;
        return new Classification(ErrorClass.UNCLASSIFIED, reason, failure);
    }

    /**
     * A database error is classified by its SQLSTATE (PostgreSQL Appendix A, "Error Codes"), not by its
     * Java type: class 08 (connection), 53 (insufficient resources), 57 (operator intervention, e.g. a
     * shutdown) and 40 (transaction rollback) are transient, the database being unavailable; class 22
     * (data exception) and 23 (integrity constraint) mean our own output was refused, a downstream
     * contract breach; anything else is left to the type mapping.
     */
    private static Classification classifySqlState(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().length() >= 2) {
                return switch (sql.getSQLState().substring(0, 2)) {
                    case "08", "53", "57", "40" -> new Classification(ErrorClass.TRANSIENT, "db_unavailable", t);
                    case "22", "23" -> new Classification(ErrorClass.DOWNSTREAM_CONTRACT, "db_rejected", t);
                    default -> null;
                };
            }
        }
        return null;
    }

    /**
     * Predicate form for the route configuration's {@code onWhen}: one {@code onException} per class.
     *
     * @param failure the caught exception
     * @param errorClass the class the clause handles
     * @return whether {@code failure} belongs to {@code errorClass}
     */
    public boolean matches(Throwable failure, ErrorClass errorClass) {
        return failure != null && classify(failure).errorClass() == errorClass;
    }
}
