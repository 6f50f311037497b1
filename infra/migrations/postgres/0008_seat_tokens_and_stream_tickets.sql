-- Seat tokens and stream tickets (issue 26).
-- seat_tokens: every reissue and revocation of a seat's token, append-only, one generation per row. The token a
-- seat was created with stays in game_secrets as generation 0; a seat's valid token is its highest generation
-- (NULL token_hash: revoked, no valid token until the next reissue); every older one is superseded. Rows, not
-- events: a token hash is a secret, and the public, hash-chained game log (docs/audit.md) must not carry it.
CREATE TABLE seat_tokens (
    game_id    text NOT NULL REFERENCES games (game_id),
    seat       integer NOT NULL CHECK (seat >= 0),
    generation integer NOT NULL CHECK (generation >= 1),
    token_hash text,
    issued_at  timestamptz NOT NULL,
    expires_at timestamptz,
    PRIMARY KEY (game_id, seat, generation),
    CHECK ((token_hash IS NULL) = (expires_at IS NULL))
);
-- stream_tickets: short-lived, single-use credentials for EventSource / browser WebSocket (which cannot send an
-- Authorization header). Only the SHA-256 of a ticket is kept; redeeming one deletes its row (DELETE ...
-- RETURNING), so a ticket opens one stream across every process and replica.
CREATE TABLE stream_tickets (
    ticket_hash text PRIMARY KEY,
    game_id     text NOT NULL REFERENCES games (game_id),
    seat        integer,
    full_read   boolean NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX stream_tickets_expiry ON stream_tickets (expires_at);
