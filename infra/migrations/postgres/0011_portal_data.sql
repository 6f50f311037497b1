-- Portal data on games (issue 29): the portal's own id for a game (unique per tenant by construction: the game
-- id is derived from the tenant and it, as for an Idempotency-Key) and a few labels it files the game under.
-- Both are optional with constant defaults, so the previous release, still inserting games without them during a
-- rolling update, writes valid rows and nothing is rewritten.
ALTER TABLE games ADD COLUMN external_id text;
ALTER TABLE games ADD COLUMN labels jsonb NOT NULL DEFAULT '[]';
-- GET /v1/games?external_id= and ?label=: a tenant's game by its portal id, and the games holding a label.
CREATE INDEX games_tenant_external ON games (tenant, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX games_labels ON games USING gin (labels);
