-- Tenants and visibility (issue 26): every game belongs to the tenant (portal) that created it, and says who may
-- watch it. Games from before are the single-key deployment's, tenant 'default', and were open to everyone:
-- 'public'. The defaults stay on the columns so that the previous release, which keeps serving during a rolling
-- update and inserts games without these columns, still writes valid rows (a constant default adds no rewrite).
ALTER TABLE games ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE games ADD COLUMN visibility text NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'unlisted', 'private'));
-- GET /v1/games: one tenant's games, newest first, paged by (created_at, game_id) keyset cursors.
CREATE INDEX games_tenant_created ON games (tenant, created_at DESC, game_id DESC);
