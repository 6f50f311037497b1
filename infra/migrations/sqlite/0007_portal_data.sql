-- Portal data on games (issue 29): the portal's own id for a game and its labels (postgres/0011 says why).
ALTER TABLE games ADD COLUMN external_id TEXT;
ALTER TABLE games ADD COLUMN labels TEXT NOT NULL DEFAULT '[]';
CREATE INDEX games_tenant_external ON games (tenant, external_id) WHERE external_id IS NOT NULL;
