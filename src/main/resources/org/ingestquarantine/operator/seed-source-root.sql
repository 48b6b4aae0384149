INSERT INTO source_roots (source, file_root, configured_at, configured_by)
VALUES (?, ?, now(), ?)
ON CONFLICT (source) DO UPDATE SET file_root = EXCLUDED.file_root, configured_at = now(),
                                   configured_by = EXCLUDED.configured_by
