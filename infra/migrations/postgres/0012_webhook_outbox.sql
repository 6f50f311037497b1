-- Webhooks (issue 29): an outbox row per webhook a game's event causes, written by the append that records the
-- event (torres_append's new p_webhooks, or create_game's transaction), so a crash can never keep an event and
-- lose its webhook. A delivery worker claims due rows (lease_until, FOR UPDATE SKIP LOCKED: several workers never
-- post one row at once), posts them and records the attempt: the row is the delivery log.
--
-- seq is the re-read cursor (GET /v1/webhooks/deliveries?after=). It is drawn inside the append's transaction
-- after the events' positions, so under the writers' shared lock of 0006: torres_webhooks_horizon() takes that
-- lock alone, which waits for every append in flight, and a reader never skips a row committed later with a
-- lower seq, exactly as for the notification log.
-- Whether a game's events cause webhooks: decided at its creation by its tenant's configuration (an endpoint in the
-- tenants file), and stored, so that every process appending to the game writes them alike, whether or not it
-- reads the tenants file (the AI workers and enforcers do not). The previous release inserts false.
ALTER TABLE games ADD COLUMN webhooks boolean NOT NULL DEFAULT false;

CREATE TABLE webhook_outbox (
    seq             bigserial PRIMARY KEY,
    delivery_id     text NOT NULL UNIQUE,        -- <game>.<version>.<type>: the same on every attempt
    tenant          text NOT NULL,
    game_id         text NOT NULL REFERENCES games (game_id),
    type            text NOT NULL,               -- game.created, turn.started, game.ended, ...
    payload         jsonb NOT NULL,              -- the whole body posted
    created_at      timestamptz NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    lease_until     timestamptz,
    last_status     integer,                     -- the endpoint's last HTTP status, if it answered
    last_error      text,
    delivered_at    timestamptz
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_outbox_tenant ON webhook_outbox (tenant, seq);

CREATE FUNCTION torres_webhooks_horizon() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_last   bigint;
    v_called boolean;
BEGIN
    PERFORM pg_advisory_xact_lock(torres_events_lock_key());
    SELECT last_value, is_called INTO v_last, v_called FROM webhook_outbox_seq_seq;
    RETURN CASE WHEN v_called THEN v_last ELSE 0 END;
END
$$;

-- The outbox rows of one append (or of a game's creation, which the service writes in its own transaction) and
-- the notice that wakes the delivery workers that LISTEN (sent at commit): one definition for both.
CREATE FUNCTION torres_write_webhooks(p_game_id text, p_at timestamptz, p_webhooks jsonb) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO webhook_outbox (delivery_id, tenant, game_id, type, payload, created_at, next_attempt_at)
        SELECT w ->> 'delivery_id', w ->> 'tenant', p_game_id, w ->> 'type', w -> 'payload', p_at, p_at
        FROM jsonb_array_elements(p_webhooks) WITH ORDINALITY AS x(w, n) ORDER BY n
        ON CONFLICT (delivery_id) DO NOTHING;
    SELECT pg_notify('torres_webhooks', p_game_id);
$$;

-- torres_append as in 0009, plus p_webhooks (and a NOTIFY on torres_webhooks when there are any, so a delivery
-- worker process posts them at once instead of at its next poll): [{"delivery_id", "tenant", "type", "payload"}, ...], inserted after
-- the events (their seq drawn under the writers' lock the events took) when the append goes through. It defaults
-- to NULL, so the previous release, still calling with twelve arguments during a rolling update, appends as before.
DROP FUNCTION torres_append(text, integer, text, text, timestamptz, jsonb, text, jsonb, integer, boolean, integer,
                            integer);

CREATE FUNCTION torres_append(
    p_game_id      text,
    p_expected     integer,
    p_command_id   text,
    p_fingerprint  text,
    p_created_at   timestamptz,
    p_events       jsonb,        -- [{"type", "payload", "schema_version", "content_hash"}, ...]
    p_status       text,
    p_summary      jsonb,
    p_ai_seat      integer,
    p_close_ai     boolean,
    p_token_seat   integer,      -- the seat whose token the actor presented, or NULL (a key acting for the AI)
    p_token_gen    integer,      -- that token's generation: refused when a later one was recorded
    p_webhooks     jsonb DEFAULT NULL  -- the webhooks these events cause; a caller of 0009's twelve sends none
) RETURNS TABLE (outcome text, current_version integer, first_prev_hash text, positions bigint[],
                 hashes text[])
LANGUAGE plpgsql AS $$
DECLARE
    v_current   integer;
    v_prev      text;
    v_first     text;
    v_hash      text;
    v_event     jsonb;
    v_version   integer;
    v_position  bigint;
    v_positions bigint[] := '{}';
    v_hashes    text[] := '{}';
    v_count     integer := jsonb_array_length(p_events);
BEGIN
    SELECT g.version INTO v_current FROM games g WHERE g.game_id = p_game_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::text, NULL::integer, NULL::text, NULL::bigint[], NULL::text[];
        RETURN;
    END IF;
    -- Statements after the lock see every append committed before it (fresh snapshot each).
    IF p_token_seat IS NOT NULL AND EXISTS (SELECT 1 FROM seat_tokens t WHERE t.game_id = p_game_id
                                            AND t.seat = p_token_seat AND t.generation > p_token_gen) THEN
        RETURN QUERY SELECT 'token_superseded'::text, v_current, NULL::text, NULL::bigint[], NULL::text[];
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM commands c WHERE c.game_id = p_game_id AND c.command_id = p_command_id) THEN
        RETURN QUERY SELECT 'duplicate'::text, v_current, NULL::text, NULL::bigint[], NULL::text[];
        RETURN;
    END IF;
    IF v_current <> p_expected THEN
        RETURN QUERY SELECT 'conflict'::text, v_current, NULL::text, NULL::bigint[], NULL::text[];
        RETURN;
    END IF;
    SELECT e.hash INTO v_prev FROM events e WHERE e.game_id = p_game_id AND e.version = v_current;
    v_prev := coalesce(v_prev, repeat('0', 64));
    v_first := v_prev;
    INSERT INTO commands (game_id, command_id, fingerprint, first_version, last_version, created_at)
        VALUES (p_game_id, p_command_id, p_fingerprint, v_current + 1, v_current + v_count, p_created_at);
    UPDATE games SET version = v_current + v_count, updated_at = p_created_at,
                     status = coalesce(p_status, status), summary = coalesce(p_summary, summary)
        WHERE game_id = p_game_id;
    IF p_close_ai THEN
        UPDATE ai_turns SET done_at = p_created_at
            WHERE game_id = p_game_id AND version <= v_current AND done_at IS NULL;
    END IF;
    IF p_ai_seat IS NOT NULL THEN
        INSERT INTO ai_turns (game_id, version, seat, created_at)
            VALUES (p_game_id, v_current + v_count, p_ai_seat, p_created_at) ON CONFLICT DO NOTHING;
    END IF;
    -- Each inserted row takes the writers' lock and then its position (trigger events_a_position, 0006).
    v_version := v_current;
    FOR v_event IN SELECT value FROM jsonb_array_elements(p_events) LOOP
        v_version := v_version + 1;
        v_hash := encode(sha256(convert_to(v_prev || (v_event ->> 'content_hash'), 'UTF8')), 'hex');
        INSERT INTO events (game_id, version, type, payload, schema_version, created_at, command_id,
                            prev_hash, hash)
            VALUES (p_game_id, v_version, v_event ->> 'type', v_event -> 'payload',
                    (v_event ->> 'schema_version')::integer, p_created_at, p_command_id, v_prev, v_hash)
            RETURNING events.position INTO v_position;
        v_positions := v_positions || v_position;
        v_hashes := v_hashes || v_hash;
        v_prev := v_hash;
    END LOOP;
    IF p_webhooks IS NOT NULL THEN
        PERFORM torres_write_webhooks(p_game_id, p_created_at, p_webhooks);
    END IF;
    RETURN QUERY SELECT 'ok'::text, v_version, v_first, v_positions, v_hashes;
END
$$;
