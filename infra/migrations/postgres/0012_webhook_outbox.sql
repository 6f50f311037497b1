-- Webhooks (issue 29): an outbox row per webhook a game's event causes, written by the append that records the
-- event (torres_append's new p_webhooks, or create_game's transaction), so a crash can never keep an event and
-- lose its webhook. A delivery worker claims due rows (lease_until, FOR UPDATE SKIP LOCKED: several workers never
-- post one row at once), posts them and records the attempt: the row is the delivery log.
--
-- seq is the re-read cursor (GET /v1/webhooks/deliveries?after=). It is drawn inside the append's transaction
-- after the events' positions, so under the writers' shared lock of 0006: torres_webhooks_horizon() takes that
-- lock alone, which waits for every append in flight, and a reader never skips a row committed later with a
-- lower seq, exactly as for the notification log.
-- Whether a game's events cause webhooks: decided at its creation by its tenant's configuration (an endpoint in the
-- tenants file), and stored, so that every process appending to the game writes them alike, whether or not it
-- reads the tenants file (the AI workers and enforcers do not). The previous release inserts false.
ALTER TABLE games ADD COLUMN webhooks boolean NOT NULL DEFAULT false;

CREATE TABLE webhook_outbox (
    seq             bigserial PRIMARY KEY,
    delivery_id     text NOT NULL UNIQUE,        -- <game>.<version>.<type>: the same on every attempt
    tenant          text NOT NULL,
    game_id         text NOT NULL REFERENCES games (game_id),
    type            text NOT NULL,               -- game.created, turn.started, game.ended, ...
    payload         jsonb NOT NULL,              -- the whole body posted
    created_at      timestamptz NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    lease_until     timestamptz,
    last_status     integer,                     -- the endpoint's last HTTP status, if it answered
    last_error      text,
    delivered_at    timestamptz
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_outbox_tenant ON webhook_outbox (tenant, seq);

CREATE FUNCTION torres_webhooks_horizon() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_last   bigint;
    v_called boolean;
BEGIN
    PERFORM pg_advisory_xact_lock(torres_events_lock_key());
    SELECT last_value, is_called INTO v_last, v_called FROM webhook_outbox_seq_seq;
    RETURN CASE WHEN v_called THEN v_last ELSE 0 END;
END
$$;

-- torres_write_webhooks, the outbox rows of one append (or of a game's creation), was created here; it is
-- defined in definitions/torres_write_webhooks.sql.

-- torres_append took p_webhooks here, written by torres_write_webhooks.
-- torres_append is defined in definitions/torres_append.sql (applied after the numbered migrations whenever it
-- changes); this migration's version of it is in git's history.
