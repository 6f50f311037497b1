-- Tenants and visibility (issue 26): every game belongs to the tenant (portal) that created it, and says who may
-- watch it. Games from before are the single-key deployment's, tenant 'default', and were open to everyone:
-- 'public'. The defaults stay so that an older release writing to the same file still inserts valid rows.
ALTER TABLE games ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
ALTER TABLE games ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'unlisted', 'private'));
-- GET /v1/games: one tenant's games, newest first, paged by (created_at, game_id) keyset cursors.
CREATE INDEX games_tenant_created ON games (tenant, created_at DESC, game_id DESC);
