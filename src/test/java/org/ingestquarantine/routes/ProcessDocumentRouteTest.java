package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import org.ingestquarantine.failure.ErrorClass;
import org.junit.jupiter.api.Test;

/**
 * Ensures routes/process-document.camel.yaml is a pipe: each stage takes the document the previous one
 * returned in the body, each step id is the stage an attempt records, and an unchanged document stops after
 * fetch.
 */
class ProcessDocumentRouteTest extends RouteTestBase {

    @Test
    void shouldCarryTheDocumentInTheBodyFromStageToStage() {
        assertThat(deliver(1).isFailed()).isFalse();
        assertThat(stages.bodies).containsExactly("preflight:IngestMessage", "fetch:IngestMessage",
                "parse:FetchedDocument", "chunk:ParsedDocument", "embed:ChunkedDocument", "index:EmbeddedDocument");
    }

    @Test
    void shouldMarkEveryStageFromTheStepIds() {
        deliver(1);
        assertThat(stages.marks).containsExactly("preflight", "fetch", "parse", "chunk", "embed", "index");
    }

    @Test
    void shouldStopAfterFetchWhenTheIndexAlreadyHoldsThisVersion() {
        stages.indexHoldsIt(true);
        assertThat(deliver(1).isFailed()).isFalse();
        assertThat(stages.marks).containsExactly("preflight", "fetch");
        assertThat(outcomes.closed).containsExactly("k1=unchanged");
    }

    @Test
    void shouldRecordTheStageAFailureHappenedIn() {
        stages.failAt("embed", RouteTestSupport.failure(ErrorClass.DOWNSTREAM_CONTRACT));
        deliver(1);
        assertThat(recorder.stages).containsExactly("embed");
    }
}
