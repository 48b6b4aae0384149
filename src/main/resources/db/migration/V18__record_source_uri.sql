-- Records keep the URI they were fetched from (issue 20, part 4): a drain and any later re-fetch use exactly it,
-- whatever the producer's scheme, instead of rebuilding one from sources.<name>.base-uri or an ingested folder.
-- source_uri is the URI the message named (or the drain fetched), written only once the source's trust check
-- (ingest.SourceAccess) admitted it; a URI refused as unknown_source, uri_not_allowed or invalid_uri is not stored
-- here (its error message names it, bounded and escaped), and neither is one no check was asked of (an unreadable
-- message, a record the DLQ sweeper writes). Its length is bounded by the message schema's maxLength for uri,
-- checked when the message is read. A drain re-checks it against the source's configuration of its own process
-- before any request. Erasure clears it on the record and on every attempt (it can name the document).
-- Records written before this migration have none: a drain resolves them as before (base-uri, or the folder an
-- ingest counted).
ALTER TABLE quarantine ADD COLUMN source_uri text;
ALTER TABLE quarantine_attempt ADD COLUMN source_uri text;
