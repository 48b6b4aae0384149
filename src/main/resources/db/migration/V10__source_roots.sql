-- The folder `ingest <folder>` configured on its command line as its source's only root
-- (sources.<name>.file-roots), so that a later drain in another process (which starts from the profile's
-- properties alone) may read where that ingest read. Written only by the ingest command, never from a
-- message: what a producer publishes cannot widen where a source may read. A source the profile configures
-- itself (file-roots or http-allow) keeps its configuration; this row is used only for a source it does not name.
CREATE TABLE source_roots (
    source             text        PRIMARY KEY,
    file_root          text        NOT NULL,               -- absolute folder, as given to ingest
    configured_at      timestamptz NOT NULL,
    configured_by      text        NOT NULL                -- who configured it, e.g. ingest-command
);
