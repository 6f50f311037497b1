-- Games, their secrets, and the append-only event log with its hash chain.
CREATE TABLE games (
    game_id     text PRIMARY KEY,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    edition     text NOT NULL,
    master      boolean NOT NULL,
    options     jsonb NOT NULL,
    seats       jsonb NOT NULL,
    version     integer NOT NULL CHECK (version >= 0),
    status      text NOT NULL CHECK (status IN ('active', 'over')),
    summary     jsonb NOT NULL
);
CREATE INDEX games_status_created ON games (status, created_at DESC, game_id);
CREATE INDEX games_created ON games (created_at DESC, game_id);

-- Never exposed through the events API: the seed (revealed by game_ended) and seat-token hashes.
CREATE TABLE game_secrets (
    game_id      text PRIMARY KEY REFERENCES games (game_id),
    seed         text NOT NULL,
    token_hashes jsonb NOT NULL
);

CREATE TABLE events (
    position       bigserial PRIMARY KEY,
    game_id        text NOT NULL REFERENCES games (game_id),
    version        integer NOT NULL CHECK (version >= 1),
    type           text NOT NULL,
    payload        jsonb NOT NULL,
    schema_version integer NOT NULL,
    created_at     timestamptz NOT NULL,
    command_id     text NOT NULL,
    prev_hash      text NOT NULL,
    hash           text NOT NULL,
    CONSTRAINT events_game_version UNIQUE (game_id, version)
);
CREATE INDEX events_game_command ON events (game_id, command_id);

-- The database itself refuses to rewrite history.
CREATE FUNCTION torres_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION torres_events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION torres_events_append_only();

-- ... and refuses a gap or a broken link in a game's chain.
CREATE FUNCTION torres_events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.version = 1 THEN
        IF NEW.prev_hash <> repeat('0', 64) THEN
            RAISE EXCEPTION 'version 1 must start the chain' USING ERRCODE = 'check_violation';
        END IF;
    ELSIF NOT EXISTS (SELECT 1 FROM events
                      WHERE game_id = NEW.game_id AND version = NEW.version - 1 AND hash = NEW.prev_hash) THEN
        RAISE EXCEPTION 'event % of % does not follow its predecessor', NEW.version, NEW.game_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER events_chain BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION torres_events_chain();
