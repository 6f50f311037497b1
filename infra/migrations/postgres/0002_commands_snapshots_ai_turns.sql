-- Command ids (idempotent retries), snapshots (a rebuildable cache) and the AI-turn outbox.
CREATE TABLE commands (
    game_id       text NOT NULL REFERENCES games (game_id),
    command_id    text NOT NULL,
    fingerprint   text,
    first_version integer NOT NULL,
    last_version  integer NOT NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (game_id, command_id)
);

CREATE TABLE snapshots (
    game_id    text NOT NULL REFERENCES games (game_id),
    version    integer NOT NULL,
    position   jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, version)
);

CREATE TABLE ai_turns (
    game_id    text NOT NULL REFERENCES games (game_id),
    version    integer NOT NULL,
    seat       integer NOT NULL,
    created_at timestamptz NOT NULL,
    done_at    timestamptz,
    PRIMARY KEY (game_id, version)
);
CREATE INDEX ai_turns_pending ON ai_turns (created_at) WHERE done_at IS NULL;
