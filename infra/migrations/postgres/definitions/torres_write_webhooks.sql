-- torres_write_webhooks: the outbox rows of one append (torres_append calls it) or of a game's creation (the store
-- calls it in create_game's transaction): one definition for both. A definition (see torres_append.sql): applied
-- whenever its text changes. Since 0013 it sends no notice, so that no append transaction takes PostgreSQL's
-- instance-wide notify lock; the delivery workers look at the outbox every TORRES_WEBHOOK_INTERVAL.
--
-- PL/pgSQL, not SQL: a SQL function that is not inlined (a void function called on its own is not) parses and
-- plans its INSERT at every call, which cost 0.5 ms per append carrying webhooks under the HTTP benchmark's load,
-- more than the append's own INSERT of its events (pg_stat_statements, docs/performance.md "Webhooks"); PL/pgSQL
-- keeps the statement's plan for the session. No ON CONFLICT: a delivery id (<game>.<version>.<type>) is written
-- once by construction, since a game's version is appended once, and the unique constraint refuses a second
-- rather than hiding the fault; a speculative insertion cost another 60 us per row.
CREATE OR REPLACE FUNCTION torres_write_webhooks(p_game_id text, p_at timestamptz, p_webhooks jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_outbox (delivery_id, tenant, game_id, type, payload, created_at, next_attempt_at)
        SELECT w ->> 'delivery_id', w ->> 'tenant', p_game_id, w ->> 'type', w -> 'payload', p_at, p_at
        FROM jsonb_array_elements(p_webhooks) WITH ORDINALITY AS x(w, n) ORDER BY n;
END
$$;
