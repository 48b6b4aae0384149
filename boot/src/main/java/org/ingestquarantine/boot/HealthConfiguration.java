package org.ingestquarantine.boot;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.apache.camel.CamelContext;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The pipeline's Actuator health indicators, named as they appear under /actuator/health/components: broker,
 * database, parserPool, quarantineBacklog. Bean names end in HealthIndicator (Actuator drops the suffix), so none
 * shadows a bean of the same name that the wiring bound in the Camel registry (Spring's beans are looked up first).
 */
@Configuration(proxyBeanMethods = false)
public class HealthConfiguration {

    @Bean
    PipelineBeans pipelineBeans(CamelContext camelContext) {
        return new PipelineBeans(camelContext);
    }

    @Bean
    BrokerHealth brokerHealthIndicator(PipelineBeans beans) {
        return new BrokerHealth(beans);
    }

    @Bean
    DatabaseHealth databaseHealthIndicator(PipelineBeans beans) {
        return new DatabaseHealth(beans);
    }

    @Bean
    ParserPoolHealth parserPoolHealthIndicator(PipelineBeans beans) {
        return new ParserPoolHealth(beans);
    }

    /**
     * @param meters the registry of the store gauges
     * @param alertAgeSeconds {@code health.backlog-alert-age-s} (ingest-quarantine-boot.properties)
     * @return the backlog indicator
     */
    @Bean
    QuarantineBacklogHealth quarantineBacklogHealthIndicator(MeterRegistry meters,
                                              @Value("${health.backlog-alert-age-s}") long alertAgeSeconds) {
        return new QuarantineBacklogHealth(meters, Duration.ofSeconds(alertAgeSeconds));
    }
}
