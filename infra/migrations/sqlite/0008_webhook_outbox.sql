-- Webhooks (issue 29): the outbox and delivery log, written in the append's transaction (postgres/0012 says why).
-- SQLite has one writer, so the autoincrement seq is already in commit order: the re-read cursor needs no horizon.
ALTER TABLE games ADD COLUMN webhooks INTEGER NOT NULL DEFAULT 0;  -- the game's events cause webhooks
CREATE TABLE webhook_outbox (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id     TEXT NOT NULL UNIQUE,
    tenant          TEXT NOT NULL,
    game_id         TEXT NOT NULL REFERENCES games (game_id),
    type            TEXT NOT NULL,
    payload         TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    lease_until     TEXT,
    last_status     INTEGER,
    last_error      TEXT,
    delivered_at    TEXT
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_outbox_tenant ON webhook_outbox (tenant, seq);
