-- Post-game analyses: a projection beside a finished game's log (postgres/0016 says why).
CREATE TABLE analyses (
    game_id        TEXT NOT NULL REFERENCES games (game_id),
    engine_version TEXT NOT NULL,
    depth          TEXT NOT NULL,
    status         TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready')),
    requested_at   TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    completed_at   TEXT,
    progress       TEXT NOT NULL DEFAULT '[]',
    result         TEXT,
    cpu_seconds    REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, engine_version, depth)
);
CREATE INDEX analyses_pending ON analyses (updated_at) WHERE status = 'pending';
