-- Event-driven wake-ups (issue 11): every committed change of a game's version sends one notice on channel
-- torres_games, from inside the transaction that made it (NOTIFY is delivered at commit, and not at all after
-- a rollback), so a listener never hears of an event that does not exist. A trigger on the games row rather
-- than a line in torres_append: creation and every append path move games.version, whichever function does it.
-- Payload: "<game_id> <version> <status> <to_move>" (to_move empty when nobody is to move); waiters need no
-- query to learn what changed.
CREATE FUNCTION torres_notify_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.version IS DISTINCT FROM OLD.version OR NEW.status IS DISTINCT FROM OLD.status THEN
        PERFORM pg_notify('torres_games', NEW.game_id || ' ' || NEW.version || ' ' || NEW.status || ' '
                          || coalesce(NEW.summary ->> 'to_move', ''));
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER games_notify_version AFTER INSERT OR UPDATE ON games
    FOR EACH ROW EXECUTE FUNCTION torres_notify_version();
