package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorClassifier.Rule;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.failure.Reasoned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Ensures every rule of the taxonomy (type or SQLSTATE) gives the class and reason DESIGN.md §2 names. */
class ErrorTaxonomyTest {

    private static final ErrorClassifier TAXONOMY = ErrorTaxonomy.standard();

    /** The table as DESIGN.md §2 states it, written out independently of ErrorTaxonomy. */
    private static final List<String> EXPECTED = List.of(
            "sqlstate 08 -> transient/db_unavailable",
            "sqlstate 53 -> transient/db_unavailable",
            "sqlstate 57 -> transient/db_unavailable",
            "sqlstate 40 -> transient/db_unavailable",
            "sqlstate 22 -> downstream_contract/db_rejected",
            "sqlstate 23 -> downstream_contract/db_rejected",
            "sqlstate 54 -> downstream_contract/db_limit",
            "org.ingestquarantine.parse.NotPdfException -> permanent_input/not_pdf",
            "org.ingestquarantine.parse.EncryptedPdfException -> permanent_input/encrypted",
            "org.ingestquarantine.parse.NoTextLayerException -> permanent_input/no_text_layer",
            "org.ingestquarantine.parse.ParseLimitException -> permanent_input/limit",
            "org.ingestquarantine.failure.PermanentInputException -> permanent_input/invalid_input",
            "java.nio.file.NoSuchFileException -> permanent_input/not_found",
            "java.nio.file.AccessDeniedException -> permanent_input/unreadable",
            "org.ingestquarantine.parse.PdfSyntaxException -> ambiguous_parse/parse_error",
            "org.ingestquarantine.parse.ParserCrashedException -> resource_fatal/worker_crash",
            "org.ingestquarantine.delivery.ConsumerDiedException -> resource_fatal/consumer_died",
            "org.ingestquarantine.failure.DownstreamContractException -> downstream_contract/contract",
            "org.ingestquarantine.failure.ShutdownException -> transient/shutdown",
            "org.ingestquarantine.failure.TransientException -> transient/transient",
            "org.ingestquarantine.quarantine.QuarantineWriteException -> transient/quarantine_unavailable",
            "org.ingestquarantine.db.DatabaseUnavailableException -> transient/db_unavailable",
            "org.ingestquarantine.db.DatabaseAccessException -> transient/db_error",
            "java.sql.SQLTransientException -> transient/db_unavailable",
            "java.sql.SQLException -> transient/db_error",
            "java.net.ConnectException -> transient/connection_refused",
            "java.net.SocketTimeoutException -> transient/timeout",
            "java.net.http.HttpTimeoutException -> transient/timeout",
            "software.amazon.awssdk.core.exception.SdkClientException -> transient/broker_unavailable",
            "org.apache.camel.language.bean.RuntimeBeanExpressionException -> pipeline_fault/expression_failed",
            "org.apache.camel.ExpressionEvaluationException -> pipeline_fault/expression_failed",
            "org.apache.camel.language.simple.types.SimpleIllegalSyntaxException -> pipeline_fault/expression_syntax",
            "org.apache.camel.component.bean.MethodNotFoundException -> pipeline_fault/method_not_found",
            "org.apache.camel.NoSuchBeanException -> pipeline_fault/no_such_bean",
            "org.apache.camel.NoSuchEndpointException -> pipeline_fault/no_such_endpoint",
            "org.apache.camel.ResolveEndpointFailedException -> pipeline_fault/no_such_endpoint",
            "org.apache.camel.NoSuchLanguageException -> pipeline_fault/no_such_language",
            "org.apache.camel.InvalidPayloadException -> pipeline_fault/wrong_body_type",
            "org.apache.camel.NoTypeConversionAvailableException -> pipeline_fault/wrong_body_type");

    @Test
    void shouldStateExactlyTheExpectedTable() {
        assertThat(TAXONOMY.rules().stream().map(ErrorTaxonomyTest::line).toList()).containsExactlyElementsOf(EXPECTED);
    }

    static Stream<Arguments> rules() {
        return TAXONOMY.rules().stream().map(r -> Arguments.of(line(r), r));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void shouldClassifyAnInstanceOfEveryRule(String line, Rule rule) throws Exception {
        Throwable failure = rule.type() == null
                ? new SQLException("refused", rule.sqlStateClass() + "000")
                : instanceOf(rule.type());
        Classification c = TAXONOMY.classify(new RuntimeException("a wrapper the taxonomy does not know", failure));
        assertThat(c.errorClass()).as(line).isEqualTo(rule.errorClass());
        String ownReason = failure instanceof Reasoned r ? r.reasonCode() : null;
        assertThat(c.reasonCode()).as(line).isEqualTo(ownReason != null ? ownReason : rule.reason());
        assertThat(c.cause()).isSameAs(failure);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void shouldLoadEveryRuleTypeByName(String line, Rule rule) throws Exception {
        if (rule.type() != null) {
            assertThat(Class.forName(rule.type().getName(), false, getClass().getClassLoader())).isSameAs(rule.type());
        } else {
            assertThat(rule.sqlStateClass()).hasSize(2);
        }
    }

    @Test
    void shouldLetTheSqlStateDecideOverTheExceptionType() {
        Throwable wrapped = new org.ingestquarantine.db.DatabaseAccessException("insert refused",
                new SQLException("value too long", "22001"));
        assertThat(TAXONOMY.classify(wrapped).errorClass()).isEqualTo(ErrorClass.DOWNSTREAM_CONTRACT);
    }

    @Test
    void shouldNeverRetryAProgramLimitTheDatabaseRefusedOurDataFor() {
        // PostgreSQL's "index row size exceeds maximum" (54000) for a key of ours, behind the store's wrapper
        Throwable wrapped = new org.ingestquarantine.db.DatabaseAccessException("insert refused",
                new SQLException("index row size exceeds btree maximum", "54000"));
        Classification c = TAXONOMY.classify(wrapped);
        assertThat(c.errorClass()).isEqualTo(ErrorClass.DOWNSTREAM_CONTRACT);
        assertThat(c.reasonCode()).isEqualTo("db_limit");
    }

    @Test
    void shouldCallAnExpressionThatCannotEvaluateAPipelineFault() {
        // what ${body.pageCont} throws in Camel 4.17 (seen by running it): the bean language's wrapper round the
        // missing method
        Throwable typo = new org.apache.camel.language.bean.RuntimeBeanExpressionException(null, "null", "pageCont",
                new org.apache.camel.component.bean.MethodNotFoundException(Object.class, "pageCont"));
        Classification c = TAXONOMY.classify(typo);
        assertThat(c.errorClass()).isEqualTo(ErrorClass.PIPELINE_FAULT);
        assertThat(c.reasonCode()).isEqualTo("expression_failed");
        assertThat(c.errorClass().chargedToDocument()).isFalse();
    }

    @Test
    void shouldKeepTheDocumentsOwnFailureThatCamelsBeanInvocationWrapped() throws Exception {
        // a bean of ours called from an expression throws the document's PDF syntax error: Camel wraps it twice
        Throwable own = instanceOf(org.ingestquarantine.parse.PdfSyntaxException.class);
        Throwable wrapped = new org.apache.camel.ExpressionEvaluationException(null, "cannot bind parameter 0",
                null, new org.apache.camel.language.bean.RuntimeBeanExpressionException(null, "parseStage",
                "parse", own));
        Classification c = TAXONOMY.classify(wrapped);
        assertThat(c.errorClass()).isEqualTo(ErrorClass.AMBIGUOUS_PARSE);
        assertThat(c.cause()).isSameAs(own);
    }

    private static String line(Rule r) {
        String key = r.type() == null ? "sqlstate " + r.sqlStateClass() : r.type().getName();
        return key + " -> " + r.errorClass().code() + "/" + r.reason();
    }

    /**
     * An instance of an exception type through its static {@code create(String)} factory (the AWS SDK's style),
     * else its widest constructor, whatever its visibility.
     */
    private static Throwable instanceOf(Class<? extends Throwable> type) throws Exception {
        try {
            return (Throwable) type.getMethod("create", String.class).invoke(null, "sample");
        } catch (NoSuchMethodException e) {
            // no factory: a constructor below
        }
        Constructor<?> ctor = Arrays.stream(type.getDeclaredConstructors())
                .filter(c -> Arrays.stream(c.getParameterTypes()).allMatch(ErrorTaxonomyTest::fillable))
                .max(Comparator.comparingInt(Constructor::getParameterCount))
                .orElseThrow(() -> new AssertionError("no constructor to build " + type.getName()));
        ctor.setAccessible(true);
        Object[] args = Arrays.stream(ctor.getParameterTypes()).map(ErrorTaxonomyTest::sample).toArray();
        return (Throwable) ctor.newInstance(args);
    }

    private static boolean fillable(Class<?> p) {
        return p == String.class || p == int.class || p == long.class || p == Throwable.class || p == Class.class
                || p == Object.class || p == org.apache.camel.Exchange.class || p == org.apache.camel.Expression.class;
    }

    private static Object sample(Class<?> p) {
        if (p == String.class || p == Object.class) {
            return "sample";
        }
        if (p == Class.class) {
            return Object.class;
        }
        if (p == org.apache.camel.Exchange.class) {
            // Camel's exceptions about a message name its exchange
            return new org.apache.camel.support.DefaultExchange(new org.apache.camel.impl.DefaultCamelContext());
        }
        if (p == int.class) {
            return 1;
        }
        return p == long.class ? 1L : null;
    }
}
