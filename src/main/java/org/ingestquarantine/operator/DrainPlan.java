package org.ingestquarantine.operator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.springframework.dao.DataAccessException;

/**
 * What a drain would select now and how long it would take ({@code drain --dry-run}): the same selection as
 * {@link Drain#run} (the oldest {@code limit} open records of the cohort), read without writing anything, not
 * even a {@code drain_runs} row. The forecast assumes {@value #REQUESTS_PER_DOCUMENT} source requests per record
 * (a HEAD and a GET), each one throttle spacing apart, as a drain spaces them.
 *
 * @param cohortDocuments open records in the cohort now
 * @param selectedBySource the selection's records per source, sorted by source
 * @param dlqIds the selection, in the order a drain would try it
 * @param sourceRequests source requests the selection is expected to need
 * @param duration expected time of the selection at the request's rate
 * @param cohortDuration expected time of the whole cohort at that rate
 */
public record DrainPlan(int cohortDocuments, SortedMap<String, Long> selectedBySource, List<String> dlqIds,
                        long sourceRequests, Duration duration, Duration cohortDuration) {

    /** Source requests a record is expected to need: a HEAD and a GET. */
    public static final int REQUESTS_PER_DOCUMENT = 2;

    /**
     * @param dataSource a pool on the migrated schema
     * @param request what to drain
     * @param headroomPercent the throttle's spacing headroom ({@value SourceRequestThrottle#HEADROOM_PROPERTY})
     * @return the plan; nothing was written
     * @throws BadOperatorInputException if the request is malformed or no open record matches
     * @throws DatabaseAccessException if the database fails
     */
    public static DrainPlan of(DataSource dataSource, Drain.Request request, double headroomPercent) {
        int cohort = Drain.requireCohort(dataSource, request);
        List<String> ids = new ArrayList<>();
        SortedMap<String, Long> bySource = new TreeMap<>();
        try {
            for (DrainCohort.Member m : new DrainCohort(request).oldest(OperatorSql.named(dataSource))) {
                ids.add(m.dlqId());
                bySource.merge(m.source(), 1L, Long::sum);
            }
        } catch (DataAccessException e) {
            throw OperatorSql.failure("the cohort could not be read", e);
        }
        Duration spacing = SourceRequestThrottle.spacing(request.ratePerSecond(), headroomPercent);
        long requests = (long) REQUESTS_PER_DOCUMENT * ids.size();
        return new DrainPlan(cohort, bySource, List.copyOf(ids), requests, spacing.multipliedBy(requests),
                spacing.multipliedBy((long) REQUESTS_PER_DOCUMENT * cohort));
    }
}
