package org.ingestquarantine.metrics;

import java.util.Map;

/**
 * Where {@link StoreGauges#COVERAGE} reads its figures: the one coverage query ({@code quarantine.QuarantineQueries},
 * a layer above this one) that {@code coverage}, the API and the page print too.
 */
@FunctionalInterface
public interface CoverageReadings {

    /**
     * @return source → coverage in [0, 1], for each source with a known total and at least one document
     * @throws RuntimeException when the store cannot be read
     */
    Map<String, Double> coverageRatios();
}
