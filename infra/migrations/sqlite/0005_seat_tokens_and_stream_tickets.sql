-- Seat tokens and stream tickets (issue 26); see the PostgreSQL migration 0008 for the design. Times are
-- format_time text (UTC ISO with microseconds), which sorts as the instants do.
CREATE TABLE seat_tokens (
    game_id    TEXT NOT NULL REFERENCES games (game_id),
    seat       INTEGER NOT NULL CHECK (seat >= 0),
    generation INTEGER NOT NULL CHECK (generation >= 1),
    token_hash TEXT,
    issued_at  TEXT NOT NULL,
    expires_at TEXT,
    PRIMARY KEY (game_id, seat, generation),
    CHECK ((token_hash IS NULL) = (expires_at IS NULL))
);
CREATE TABLE stream_tickets (
    ticket_hash TEXT PRIMARY KEY,
    game_id     TEXT NOT NULL REFERENCES games (game_id),
    seat        INTEGER,
    full_read   INTEGER NOT NULL,
    expires_at  TEXT NOT NULL
);
CREATE INDEX stream_tickets_expiry ON stream_tickets (expires_at);
