-- torres_write_webhooks: the outbox rows of one append (torres_append calls it) or of a game's creation (the store
-- calls it in create_game's transaction): one definition for both. A definition (see torres_append.sql): applied
-- whenever its text changes. Since 0013 it sends no notice, so that no append transaction takes PostgreSQL's
-- instance-wide notify lock; the delivery workers look at the outbox every TORRES_WEBHOOK_INTERVAL.
CREATE OR REPLACE FUNCTION torres_write_webhooks(p_game_id text, p_at timestamptz, p_webhooks jsonb) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO webhook_outbox (delivery_id, tenant, game_id, type, payload, created_at, next_attempt_at)
        SELECT w ->> 'delivery_id', w ->> 'tenant', p_game_id, w ->> 'type', w -> 'payload', p_at, p_at
        FROM jsonb_array_elements(p_webhooks) WITH ORDINALITY AS x(w, n) ORDER BY n
        ON CONFLICT (delivery_id) DO NOTHING;
$$;
