-- Post-game analyses: a projection beside a finished game's log, never in it (it is derived from the log and may be
-- recomputed by a better engine). One row per game, analysis engine version and depth: a new engine version adds
-- rows and never rewrites old ones. The row is also the work queue: 'pending' until the AI workers finish it; its
-- turns are computed in slices (progress) so that no slice keeps a worker from a human's AI turn for long.
CREATE TABLE analyses (
    game_id        text NOT NULL REFERENCES games (game_id),
    engine_version text NOT NULL,
    depth          text NOT NULL,
    status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready')),
    requested_at   timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    completed_at   timestamptz,
    progress       jsonb NOT NULL DEFAULT '[]'::jsonb,  -- the turns analysed so far (pending rows)
    result         jsonb,                               -- the whole analysis (ready rows)
    cpu_seconds    double precision NOT NULL DEFAULT 0, -- CPU spent on it, all slices together
    PRIMARY KEY (game_id, engine_version, depth)
);
CREATE INDEX analyses_pending ON analyses (updated_at) WHERE status = 'pending';
