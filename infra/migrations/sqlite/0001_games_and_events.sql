-- Games, their secrets, and the append-only event log with its hash chain (SQLite dialect).
CREATE TABLE games (
    game_id     TEXT PRIMARY KEY,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    edition     TEXT NOT NULL,
    master      INTEGER NOT NULL,
    options     TEXT NOT NULL,
    seats       TEXT NOT NULL,
    version     INTEGER NOT NULL CHECK (version >= 0),
    status      TEXT NOT NULL CHECK (status IN ('active', 'over')),
    summary     TEXT NOT NULL
);
CREATE INDEX games_status_created ON games (status, created_at DESC, game_id);
CREATE INDEX games_created ON games (created_at DESC, game_id);

CREATE TABLE game_secrets (
    game_id      TEXT PRIMARY KEY REFERENCES games (game_id),
    seed         TEXT NOT NULL,
    token_hashes TEXT NOT NULL
);

CREATE TABLE events (
    position       INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id        TEXT NOT NULL REFERENCES games (game_id),
    version        INTEGER NOT NULL CHECK (version >= 1),
    type           TEXT NOT NULL,
    payload        TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    created_at     TEXT NOT NULL,
    command_id     TEXT NOT NULL,
    prev_hash      TEXT NOT NULL,
    hash           TEXT NOT NULL,
    UNIQUE (game_id, version)
);
CREATE INDEX events_game_command ON events (game_id, command_id);

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END;

CREATE TRIGGER events_chain_start BEFORE INSERT ON events
WHEN NEW.version = 1 AND NEW.prev_hash <> '0000000000000000000000000000000000000000000000000000000000000000'
BEGIN SELECT RAISE(ABORT, 'version 1 must start the chain'); END;
CREATE TRIGGER events_chain BEFORE INSERT ON events
WHEN NEW.version > 1 AND NOT EXISTS (
    SELECT 1 FROM events WHERE game_id = NEW.game_id AND version = NEW.version - 1 AND hash = NEW.prev_hash)
BEGIN SELECT RAISE(ABORT, 'event does not follow its predecessor'); END;
