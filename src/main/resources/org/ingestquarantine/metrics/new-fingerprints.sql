-- metrics.StoreGauges: error fingerprints first seen within the window. Parameter: the window, milliseconds.
SELECT count(*) FROM (SELECT error_fingerprint FROM quarantine_attempt
    WHERE error_fingerprint IS NOT NULL GROUP BY error_fingerprint
    HAVING min(seen_at) > now() - ?::bigint * interval '1 millisecond') f
