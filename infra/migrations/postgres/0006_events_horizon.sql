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

-- torres_append lost its LOCK TABLE here (the writers' lock above replaces it).
-- torres_append is defined in definitions/torres_append.sql (applied after the numbered migrations whenever it
-- changes); this migration's version of it is in git's history.
