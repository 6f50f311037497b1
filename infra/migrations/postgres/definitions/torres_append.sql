-- torres_append: the append, one statement (`SELECT * FROM torres_append(...)`): lock the game's row, check the
-- command id and the expected version, write the events, the game's new version, status and summary, the AI outbox
-- and the webhook outbox, and extend the hash chain (hash = sha256(prev_hash || content_hash), the content hashes
-- computed by the service). Returns outcome 'ok' | 'duplicate' | 'conflict' | 'not_found' | 'token_superseded'.
--
-- A definition, not a numbered migration: the store applies this file after the numbered migrations whenever its
-- text changed since it was last applied (the table schema_definitions keeps each file's SHA-256), in one
-- transaction with the drop of every older signature. So the function has one home, changed in place, and its
-- versions are git's history; the numbered migrations that created and redefined it (0003, 0006, 0009, 0012) now
-- only say that it lives here.
--
-- * The writers' lock (0006): every insert into events takes the shared side of torres_events_lock_key() (the
--   trigger of 0006), so that a reader of the notification log up to torres_events_horizon() never skips a
--   position that commits later; there is no LOCK TABLE.
-- * The seat token (0009): an action sent with a seat token is refused ('token_superseded'), under the game's row
--   lock, when a later generation of the presenting seat's token was recorded, so that a revocation that committed
--   before the append refuses it while the action's one round trip stays one.
-- * Webhooks (0012): p_webhooks, [{"delivery_id", "tenant", "type", "payload"}, ...], written after the events by
--   torres_write_webhooks (their seq drawn under the writers' lock the events took). It defaults to NULL, so the
--   previous release, still calling with twelve arguments during a rolling update, appends as before.
DO $$
DECLARE
    v_signature regprocedure;
BEGIN
    FOR v_signature IN SELECT oid::regprocedure FROM pg_proc WHERE proname = 'torres_append' LOOP
        EXECUTE 'DROP FUNCTION ' || v_signature;
    END LOOP;
END
$$;

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
