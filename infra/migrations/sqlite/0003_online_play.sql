-- Online play (issue 15): snapshots also keep the lifecycle (clocks, forfeits, undo window), and the
-- deadline enforcer finds due games by the summary's deadline through an index.
ALTER TABLE snapshots ADD COLUMN lifecycle TEXT;
CREATE INDEX games_deadline ON games (json_extract(summary, '$.deadline'))
    WHERE status = 'active' AND json_extract(summary, '$.deadline') IS NOT NULL;
