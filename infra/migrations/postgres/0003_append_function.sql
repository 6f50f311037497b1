-- One-round-trip append: lock the game, check command id and version, write everything, extend the
-- hash chain (hash = sha256(prev_hash || content_hash), content hashes computed by the service),
-- all inside one statement. Returns outcome 'ok' | 'duplicate' | 'conflict' | 'not_found'.
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
    p_close_ai     boolean
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
    -- Global order of the notification log: positions become visible in ascending order.
    LOCK TABLE events IN EXCLUSIVE MODE;
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
    RETURN QUERY SELECT 'ok'::text, v_version, v_first, v_positions, v_hashes;
END
$$;
