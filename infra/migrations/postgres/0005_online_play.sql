-- Online play (issue 15): snapshots also keep the lifecycle (clocks, forfeits, undo window), and the
-- deadline enforcer finds due games by the summary's deadline through an index.
ALTER TABLE snapshots ADD COLUMN lifecycle jsonb;
CREATE INDEX games_deadline ON games ((summary->>'deadline'))
    WHERE status = 'active' AND summary->>'deadline' IS NOT NULL;
