-- The notification log's order without a global write lock (issue 11).
--
-- Until now every append took LOCK TABLE events IN EXCLUSIVE MODE, so positions became visible in ascending
-- order: a consumer reading after=p could never later meet a lower position committed after it read. The lock
-- was held until the end of the transaction, WAL flush included, so every append of every replica waited for
-- the previous one's fsync, one at a time: the ceiling of the whole service (docs/performance.md, issue 11).
--
-- Now the writers share a lock and the (rare) readers of the log wait for them instead:
-- * every row inserted into events first takes the transaction-level advisory lock 'torres_events' in SHARED
--   mode and only then draws its position (trigger events_a_position, so no insert path can forget it); writers
--   never wait for one another, and concurrent commits share WAL flushes again;
-- * a reader of the log first calls torres_events_horizon(): it takes the same lock in EXCLUSIVE mode, which
--   waits until every writer holding it has committed or rolled back, reads the highest position drawn so far,
--   and lets go at once. Every position up to that horizon is now committed or will never exist; every
--   position drawn later is above it. The reader then reads (after, horizon] in a new statement (a new
--   snapshot), so it can never skip a position that commits later.
-- While a reader waits, new writers queue behind it: a log read delays appends by at most one in-flight append.

-- One advisory lock key for writers and readers: the bytes of 'torres_e' read as a bigint.
CREATE FUNCTION torres_events_lock_key() RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT 8390050466468421477::bigint
$$;

CREATE FUNCTION torres_events_position() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(torres_events_lock_key());
    NEW.position := nextval('events_position_seq');
    RETURN NEW;
END
$$;
-- BEFORE ROW triggers fire in name order: the position is drawn before events_chain checks the row. The column
-- default (also nextval) is evaluated before any trigger, so it would draw a position without the lock: drop it.
ALTER TABLE events ALTER COLUMN position DROP DEFAULT;
CREATE TRIGGER events_a_position BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION torres_events_position();

CREATE FUNCTION torres_events_horizon() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_last   bigint;
    v_called boolean;
BEGIN
    PERFORM pg_advisory_xact_lock(torres_events_lock_key());
    SELECT last_value, is_called INTO v_last, v_called FROM events_position_seq;
    RETURN CASE WHEN v_called THEN v_last ELSE 0 END;
END
$$;

-- torres_append (0003) without its LOCK TABLE; otherwise unchanged.
CREATE OR REPLACE FUNCTION torres_append(
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
    RETURN QUERY SELECT 'ok'::text, v_version, v_first, v_positions, v_hashes;
END
$$;
