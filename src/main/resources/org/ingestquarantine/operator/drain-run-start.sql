INSERT INTO drain_runs (run_id, started_by, started_at, error_fingerprint, parser_version, error_class,
                        limit_documents, rate_per_s, cohort_documents, selected)
VALUES (:runId, :startedBy, :startedAt, :fingerprint, :parserVersion, :errorClass,
        :limit, :rate, :cohort, :selected)
