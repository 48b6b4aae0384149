package org.ingestquarantine.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Keeps the fast lane fast (docs/testing.md, "Two lanes"): a class named {@code *Test} runs under surefire in
 * {@code mvn test}, so it may not start PostgreSQL, a broker, the S3 server, parser worker JVMs or the pipeline; a
 * test that needs one is an {@code *IT} and runs under failsafe in {@code mvn verify}.
 */
class TestLanesTest {

    private static final JavaClasses TESTS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS).importPackages("org.ingestquarantine");

    @Test
    void shouldStartNoServiceFromTheFastLane() {
        noClasses().that().haveSimpleNameEndingWith("Test")
                .should().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.testsupport.PostgresTestBase")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.testsupport.Postmaster")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.testsupport.TestPipeline")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.testsupport.RabbitMqBroker")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.testsupport.KafkaKraftBroker")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.testsupport.S3Server")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.testsupport.ParsePool")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.testsupport.ConsumerProcess")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.db.EmbeddedPostgresService")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.broker.sqs.EmbeddedSqsServer")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.parse.WorkerPoolParser")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.ingestquarantine.app.PipelineApp")
                .because("a *Test runs in the fast lane (mvn test); a test that starts a service is an *IT")
                .check(TESTS);
    }
}
