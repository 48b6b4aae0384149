-- ingest.SourceRoots.record: the folder an ingest command configured as the source's only root, replacing an
-- earlier one. Parameters: source, file_root, configured_at, configured_by.
INSERT INTO source_roots (source, file_root, configured_at, configured_by) VALUES (?, ?, ?, ?)
ON CONFLICT (source) DO UPDATE SET file_root = EXCLUDED.file_root,
    configured_at = EXCLUDED.configured_at, configured_by = EXCLUDED.configured_by
