package org.ingestquarantine.operator;

import java.time.Duration;
import java.util.Map;

/**
 * The forecast of a canary (a run that selected less than its cohort): what draining the whole cohort would take and
 * close, from the share of tried records the run closed, with its 95% Wilson score interval.
 */
final class DrainForecast {

    private DrainForecast() {
    }

    /**
     * @param cohortDocuments open records in the cohort when the run started
     * @param selected records the run selected
     * @param outcomes the run's counts per outcome
     * @param requests source requests the run made
     * @param spacing the run's time between two source requests, its rate's headroom included (the throttle's
     *     own figure, so the forecast time is what a drain at that rate takes: one spacing per request)
     * @return the forecast of the whole cohort
     */
    static DrainReport.Forecast of(int cohortDocuments, int selected, Map<String, Long> outcomes, long requests,
                                   Duration spacing) {
        long tried = selected - outcomes.getOrDefault("not_tried", 0L) - outcomes.entrySet().stream()
                .filter(e -> e.getKey().startsWith(Drain.NOT_ATTEMPTED)).mapToLong(Map.Entry::getValue).sum();
        long closed = outcomes.getOrDefault("repaired_parser_fixed", 0L)
                + outcomes.getOrDefault("repaired_content_changed", 0L) + outcomes.getOrDefault("deleted_at_source", 0L);
        double perDocument = tried == 0 ? 2.0 : (double) requests / tried;
        long expectedRequests = Math.round(perDocument * cohortDocuments);
        double share = tried == 0 ? 0.0 : (double) closed / tried;
        double[] interval = wilson(closed, tried);
        return new DrainReport.Forecast(cohortDocuments, expectedRequests,
                spacing.multipliedBy(expectedRequests), share, interval[0], interval[1]);
    }

    /** 95% Wilson score interval of a share {@code k/n}; [0, 1] when n is 0. */
    static double[] wilson(long k, long n) {
        if (n == 0) {
            return new double[] {0.0, 1.0};
        }
        double z = 1.959964;
        double p = (double) k / n;
        double denominator = 1 + z * z / n;
        double centre = (p + z * z / (2.0 * n)) / denominator;
        double half = z * Math.sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / denominator;
        return new double[] {Math.max(0, centre - half), Math.min(1, centre + half)};
    }
}
