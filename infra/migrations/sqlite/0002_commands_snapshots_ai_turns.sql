-- Command ids (idempotent retries), snapshots (a rebuildable cache) and the AI-turn outbox.
CREATE TABLE commands (
    game_id       TEXT NOT NULL REFERENCES games (game_id),
    command_id    TEXT NOT NULL,
    fingerprint   TEXT,
    first_version INTEGER NOT NULL,
    last_version  INTEGER NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (game_id, command_id)
);

CREATE TABLE snapshots (
    game_id    TEXT NOT NULL REFERENCES games (game_id),
    version    INTEGER NOT NULL,
    position   TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
);

CREATE TABLE ai_turns (
    game_id    TEXT NOT NULL REFERENCES games (game_id),
    version    INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    done_at    TEXT,
    PRIMARY KEY (game_id, version)
);
CREATE INDEX ai_turns_pending ON ai_turns (created_at) WHERE done_at IS NULL;
