package org.ingestquarantine.routes;

import org.apache.camel.BeanInject;
import org.apache.camel.CamelContext;
import org.apache.camel.EndpointInject;
import org.apache.camel.Exchange;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * The real route files over {@link RouteDoubles}, one Camel context per test class: what every route test
 * shares. The record's SQL statement is a mock endpoint ({@link #recordStatement}) that the statement
 * never reaches. The doubles are reset before each test.
 */
@CamelMainTest(configurationClasses = RouteDoubles.class, mockEndpointsAndSkip = "sql:*",
        properties = {RouteTestSupport.ROUTES, RouteTestSupport.INGEST_FROM, RouteTestSupport.DLQ_FROM})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RouteTestBase {

    @BeanInject
    CamelContext context;
    @BeanInject("stages")
    RouteDoubles.Stages stages;
    @BeanInject("outcomes")
    RouteDoubles.Outcomes outcomes;
    @BeanInject("quarantineRecorder")
    RouteDoubles.Recorder recorder;
    @BeanInject("broker")
    RouteDoubles.Broker broker;
    @BeanInject("dlqSweeper")
    RouteDoubles.Sweeper sweeper;
    @BeanInject("embeddingService")
    RouteDoubles.EmbeddingService embeddingService;
    @BeanInject("consumerCircuitBreaker")
    ConsumerCircuitBreaker breaker;

    @EndpointInject("mock:sql:classpath:sql/quarantine-record.sql")
    MockEndpoint recordStatement;

    @BeforeEach
    void resetDoubles() throws InterruptedException {
        recordStatement.reset();
        stages.reset();
        outcomes.closed.clear();
        recorder.recorded.clear();
        recorder.stages.clear();
        recorder.failing.set(false);
        broker.releases.clear();
        sweeper.swept.clear();
        embeddingService.up.set(true);
        breaker.awaitClosed();
    }

    /** Delivers a well-formed message for {@code d.pdf} with key {@code k1}. */
    Exchange deliver(int deliveryCount) {
        return RouteTestSupport.deliver(context, RouteTestSupport.message("d.pdf"), "k1", deliveryCount);
    }
}
