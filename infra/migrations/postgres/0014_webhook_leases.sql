-- Webhook claims are committed leases: a worker claims due rows by setting lease_owner (one token per claim) and
-- lease_until in a short transaction, posts them with no transaction open, and records each attempt in a
-- transaction of its own, only while lease_owner is still its token. A worker that dies leaves its rows to the
-- next claim once lease_until passes; one that outlives its lease has its record refused.
ALTER TABLE webhook_outbox ADD COLUMN lease_owner text;
-- The claim numbers each tenant's due rows (one queue per endpoint), and the metrics count them by tenant.
CREATE INDEX webhook_outbox_pending_tenant ON webhook_outbox (tenant, next_attempt_at, seq) WHERE status = 'pending';
