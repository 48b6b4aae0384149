package org.ingestquarantine.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Ensures the packages only point down (docs/design.md, "Layout"): no package imports one that imports it back,
 * and each layer uses only the layers beneath it.
 */
class LayeringTest {

    private static final String ROOT = "org.ingestquarantine.";
    private static final JavaClasses PRODUCT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("org.ingestquarantine");

    /** Every package, broker.sqs, broker.rabbitmq and broker.kafka each on their own, is free of cycles. */
    @Test
    void shouldHaveNoPackageCycles() {
        slices().matching(ROOT + "(**)").should().beFreeOfCycles().check(PRODUCT);
    }

    /**
     * The floors of the house, top to bottom; a layer may use only the layers below it. The operator's
     * service layer sits below the commands and the HTTP API (web) and above what it reads and repairs;
     * web does not reach the brokers, and the operator layer uses delivery only for the attempt journal. The S3
     * client's settings (objectstore) sit at the bottom, for the payload store and the S3 document connector.
     */
    @Test
    void shouldPointDownOnly() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("cli").definedBy(ROOT + "cli..")
            .layer("app").definedBy(ROOT + "app..")
            .optionalLayer("web").definedBy(ROOT + "web..")
            .layer("operator").definedBy(ROOT + "operator..")
            .layer("broker").definedBy(ROOT + "broker..")
            .layer("delivery").definedBy(ROOT + "delivery..")
            .layer("quarantine").definedBy(ROOT + "quarantine..")
            .layer("ingest").definedBy(ROOT + "ingest..")
            .layer("parse").definedBy(ROOT + "parse..")
            .layer("metrics").definedBy(ROOT + "metrics..")
            .layer("pipeline").definedBy(ROOT + "pipeline..")
            .layer("failure").definedBy(ROOT + "failure..")
            .layer("db").definedBy(ROOT + "db..")
            .layer("objectstore").definedBy(ROOT + "objectstore..")
            .whereLayer("cli").mayNotBeAccessedByAnyLayer()
            .whereLayer("app").mayOnlyBeAccessedByLayers("cli")
            .whereLayer("web").mayOnlyBeAccessedByLayers("cli", "app")
            .whereLayer("operator").mayOnlyBeAccessedByLayers("cli", "app", "web")
            .whereLayer("broker").mayOnlyBeAccessedByLayers("cli", "app")
            .whereLayer("delivery").mayOnlyBeAccessedByLayers("cli", "app", "broker", "operator")
            .whereLayer("quarantine").mayOnlyBeAccessedByLayers("cli", "app", "web", "operator", "broker", "delivery")
            .whereLayer("ingest").mayOnlyBeAccessedByLayers("cli", "app", "web", "operator", "broker", "delivery",
                    "quarantine")
            .whereLayer("parse").mayOnlyBeAccessedByLayers("cli", "app", "web", "operator", "broker", "delivery",
                    "quarantine", "ingest")
            .whereLayer("metrics").mayOnlyBeAccessedByLayers("cli", "app", "web", "operator", "broker", "delivery",
                    "quarantine", "ingest", "parse")
            .whereLayer("pipeline").mayOnlyBeAccessedByLayers("cli", "app", "web", "operator", "broker", "delivery",
                    "quarantine", "ingest", "parse", "metrics")
            .whereLayer("failure").mayOnlyBeAccessedByLayers("cli", "app", "web", "operator", "broker", "delivery",
                    "quarantine", "ingest", "parse", "metrics", "pipeline")
            .whereLayer("db").mayOnlyBeAccessedByLayers("cli", "app", "web", "operator", "broker", "delivery",
                    "quarantine", "ingest", "parse", "metrics", "pipeline", "failure")
            .whereLayer("objectstore").mayOnlyBeAccessedByLayers("cli", "app", "web", "operator", "broker", "delivery",
                    "quarantine", "ingest", "parse", "metrics", "pipeline", "failure", "db")
                .check(PRODUCT);
    }
}
