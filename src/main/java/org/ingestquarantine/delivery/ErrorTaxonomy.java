package org.ingestquarantine.delivery;

import static org.ingestquarantine.failure.ErrorClass.AMBIGUOUS_PARSE;
import static org.ingestquarantine.failure.ErrorClass.DOWNSTREAM_CONTRACT;
import static org.ingestquarantine.failure.ErrorClass.PERMANENT_INPUT;
import static org.ingestquarantine.failure.ErrorClass.PIPELINE_FAULT;
import static org.ingestquarantine.failure.ErrorClass.RESOURCE_FATAL;
import static org.ingestquarantine.failure.ErrorClass.TRANSIENT;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import org.apache.camel.ExpressionEvaluationException;
import org.apache.camel.InvalidPayloadException;
import org.apache.camel.NoSuchBeanException;
import org.apache.camel.NoSuchEndpointException;
import org.apache.camel.NoSuchLanguageException;
import org.apache.camel.NoTypeConversionAvailableException;
import org.apache.camel.ResolveEndpointFailedException;
import org.apache.camel.component.bean.MethodNotFoundException;
import org.apache.camel.language.bean.RuntimeBeanExpressionException;
import org.apache.camel.language.simple.types.SimpleIllegalSyntaxException;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.DatabaseUnavailableException;
import org.ingestquarantine.failure.DownstreamContractException;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.parse.EncryptedPdfException;
import org.ingestquarantine.parse.NoTextLayerException;
import org.ingestquarantine.parse.NotPdfException;
import org.ingestquarantine.parse.ParseLimitException;
import org.ingestquarantine.parse.ParserCrashedException;
import org.ingestquarantine.parse.PdfSyntaxException;
import org.ingestquarantine.quarantine.QuarantineWriteException;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * The failure taxonomy of DESIGN.md §2 as one table: which exception (or SQLSTATE) is which
 * {@link ErrorClass}, with the reason recorded when the exception names none. Anything not here is
 * unclassified. Read it top to bottom; the budget each class gets is in application.properties
 * ({@code failure.<class>.*}).
 *
 * <p>The last block is Camel's own exceptions about a route ({@code pipeline_fault}): what
 * {@code ${body.pageCont}} throws (a {@link RuntimeBeanExpressionException} around a
 * {@link MethodNotFoundException}), a bean method's parameter expression that cannot evaluate, a step given a body
 * it cannot take, an endpoint resolved at run time that does not exist. They are wrapper rules: Camel wraps our
 * beans' own exceptions in some of them, so a document's failure deeper in the chain (a PDF syntax error thrown
 * by a bean an expression calls) keeps its own class.
 */
public final class ErrorTaxonomy {

    private ErrorTaxonomy() {
    }

    /** @return the product's classifier */
    public static ErrorClassifier standard() {
        return ErrorClassifier.builder()
                // a database error means what its SQLSTATE class says (PostgreSQL Appendix A, "Error Codes")
                .sqlState("08", TRANSIENT, "db_unavailable")             // connection exception
                .sqlState("53", TRANSIENT, "db_unavailable")             // insufficient resources
                .sqlState("57", TRANSIENT, "db_unavailable")             // operator intervention, e.g. shutdown
                .sqlState("40", TRANSIENT, "db_unavailable")             // transaction rollback
                .sqlState("22", DOWNSTREAM_CONTRACT, "db_rejected")      // data exception: our output refused
                .sqlState("23", DOWNSTREAM_CONTRACT, "db_rejected")      // integrity constraint violation
                .sqlState("54", DOWNSTREAM_CONTRACT, "db_limit")         // program limit exceeded: a row, key or
                                                                          // statement of ours too large; never retried
                // permanent_input: the input itself; no retry can help
                .type(NotPdfException.class, PERMANENT_INPUT, "not_pdf")
                .type(EncryptedPdfException.class, PERMANENT_INPUT, "encrypted")
                .type(NoTextLayerException.class, PERMANENT_INPUT, "no_text_layer")
                .type(ParseLimitException.class, PERMANENT_INPUT, "limit")
                .type(PermanentInputException.class, PERMANENT_INPUT, "invalid_input")
                .type(NoSuchFileException.class, PERMANENT_INPUT, "not_found")
                .type(AccessDeniedException.class, PERMANENT_INPUT, "unreadable")
                // ambiguous_parse: the parser threw for a reason it cannot name
                .type(PdfSyntaxException.class, AMBIGUOUS_PARSE, "parse_error")
                // resource_fatal: a process died
                .type(ParserCrashedException.class, RESOURCE_FATAL, "worker_crash")
                .type(ConsumerDiedException.class, RESOURCE_FATAL, "consumer_died")
                // downstream_contract: our own output broke a contract
                .type(DownstreamContractException.class, DOWNSTREAM_CONTRACT, "contract")
                // transient: waiting can help
                .type(ShutdownException.class, TRANSIENT, ShutdownException.REASON) // this process is stopping
                .type(TransientException.class, TRANSIENT, "transient")
                .type(QuarantineWriteException.class, TRANSIENT, "quarantine_unavailable")
                .type(DatabaseUnavailableException.class, TRANSIENT, "db_unavailable")
                .type(DatabaseAccessException.class, TRANSIENT, "db_error")
                .type(SQLTransientException.class, TRANSIENT, "db_unavailable")
                .type(SQLException.class, TRANSIENT, "db_error")
                .type(ConnectException.class, TRANSIENT, "connection_refused")
                .type(SocketTimeoutException.class, TRANSIENT, "timeout")
                .type(HttpTimeoutException.class, TRANSIENT, "timeout")
                .type(SdkClientException.class, TRANSIENT, "broker_unavailable")
                // pipeline_fault: a route of ours cannot run, whatever the document; decides only when nothing
                // above matched anywhere in the chain
                .wrapperType(RuntimeBeanExpressionException.class, PIPELINE_FAULT, "expression_failed")
                .wrapperType(ExpressionEvaluationException.class, PIPELINE_FAULT, "expression_failed")
                .wrapperType(SimpleIllegalSyntaxException.class, PIPELINE_FAULT, "expression_syntax")
                .wrapperType(MethodNotFoundException.class, PIPELINE_FAULT, "method_not_found")
                .wrapperType(NoSuchBeanException.class, PIPELINE_FAULT, "no_such_bean")
                .wrapperType(NoSuchEndpointException.class, PIPELINE_FAULT, "no_such_endpoint")
                .wrapperType(ResolveEndpointFailedException.class, PIPELINE_FAULT, "no_such_endpoint")
                .wrapperType(NoSuchLanguageException.class, PIPELINE_FAULT, "no_such_language")
                .wrapperType(InvalidPayloadException.class, PIPELINE_FAULT, "wrong_body_type")
                .wrapperType(NoTypeConversionAvailableException.class, PIPELINE_FAULT, "wrong_body_type")
                .build();
    }
}
