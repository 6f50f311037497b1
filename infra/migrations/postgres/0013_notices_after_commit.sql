-- Notices after the commit, not inside it (issue 31).
--
-- Since 0004 every append sent pg_notify('torres_games', ...) from a trigger inside its own transaction, and since
-- 0012 an append that wrote webhooks also sent pg_notify('torres_webhooks', ...). A transaction that has notified
-- takes, at pre-commit, a lock that is one for the whole PostgreSQL instance ("so that queue entries appear in
-- commit order") and holds it through its commit, WAL flush included: every appending transaction of every game
-- committed one at a time, behind the previous one's fsync (docs/performance.md, "Writes that scale").
--
-- Now no append or creation transaction notifies. The process that made the change sends the notice after its
-- commit (torres_game.waiting.PgNotifier, batching what its threads committed meanwhile) in a transaction of its
-- own that writes nothing and does not wait for the disk (synchronous_commit off: a notice lost in a crash is one
-- that nobody was going to hear anyway, as every listener reconnects and re-reads), so it holds the instance's
-- notify lock for microseconds instead of an fsync. Still a notice only for a committed change: it is sent after
-- the commit returned. A notice that is never sent (the process died between its commit and the notice) is found
-- by each listener's periodic re-read of the versions of the games it has waiters on (PgListener.recheck_every).
--
-- Rolling update: a replica of the previous release keeps appending through torres_append (same signature, now
-- without the trigger's notice) until it is replaced. Its appends reach the waiters of updated replicas by that
-- re-read (within 2 s), and the waiters of not-yet-updated replicas, which have no re-read, at their long-poll's
-- timeout or their stream's reconnect (the drain of their replica ends them); updated replicas' notices reach
-- every listener, old or new (same channel, same payload).

DROP TRIGGER games_notify_version ON games;
DROP FUNCTION torres_notify_version();

-- torres_write_webhooks lost its pg_notify here (definitions/torres_write_webhooks.sql): the store announces on
-- torres_webhooks after the commit.

-- The notices of changes already committed, one per (channel, payload) pair, in one call: the statement a process
-- sends after its commits (call it alone, in autocommit: it sets synchronous_commit off for its own transaction).
-- pg_notify folds identical (channel, payload) pairs of one transaction into one notice.
CREATE FUNCTION torres_notify(p_channels text[], p_payloads text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_notify(c, p) FROM unnest(p_channels, p_payloads) AS u(c, p);
END
$$;
