CREATE TEMP TABLE seed_docs ON COMMIT DROP AS
SELECT i, (i::bigint * 104729) %% %1$d AS u, (i::bigint * 7919) %% %1$d AS v,
       (i::bigint * 15485863) %% %1$d AS w FROM generate_series(0, %1$d - 1) i
