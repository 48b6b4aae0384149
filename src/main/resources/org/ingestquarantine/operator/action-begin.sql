INSERT INTO operator_actions (action_id, action, actor, channel, started_at, error_fingerprint, parser_version,
                              error_class, source, limit_documents, reason_code, owner)
VALUES (:actionId, :action, :actor, :channel, :startedAt, :fingerprint, :parserVersion,
        :errorClass, :source, :limit, :reasonCode, :owner)
