-- Webhook claims are committed leases held by one claim's token (postgres/0014 says why).
ALTER TABLE webhook_outbox ADD COLUMN lease_owner TEXT;
CREATE INDEX webhook_outbox_pending_tenant ON webhook_outbox (tenant, next_attempt_at, seq) WHERE status = 'pending';
