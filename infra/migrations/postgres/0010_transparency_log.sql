-- The transparency log of finished games' heads (issue 28, docs/audit.md sections 9 and 13).
-- log_leaves: one row per finished game, written by a trigger in the transaction that inserts its game_ended
-- event (so no append path can forget it, and an append costs one more row insert); leaf_index and leaf_hash
-- are NULL until the sequencer integrates the leaf, and are then set exactly once (the trigger below refuses any
-- later change, and leaf_index is unique). seq orders the pending leaves: commit order is not knowable, insertion
-- order is good enough (the sequencer takes them in one transaction under a lock).
CREATE TABLE log_leaves (
    seq         bigserial PRIMARY KEY,
    game_id     text NOT NULL UNIQUE,
    version     integer NOT NULL,
    head_hash   text NOT NULL,
    queued_at   timestamptz NOT NULL,
    leaf_index  bigint UNIQUE,
    leaf_hash   bytea,
    integrated_at timestamptz,
    CHECK ((leaf_index IS NULL) = (leaf_hash IS NULL) AND (leaf_index IS NULL) = (integrated_at IS NULL))
);
CREATE INDEX log_leaves_pending ON log_leaves (seq) WHERE leaf_index IS NULL;
CREATE INDEX log_leaves_hash ON log_leaves (leaf_hash) WHERE leaf_hash IS NOT NULL;

-- log_nodes: every complete subtree of the RFC 9162 tree, (level, node_index) covering leaves
-- [node_index * 2^level, (node_index + 1) * 2^level). A complete subtree never changes, so every proof of every tree size
-- is answered from these rows (at most 2 log2(n) of them per proof).
CREATE TABLE log_nodes (
    level integer NOT NULL CHECK (level >= 0 AND level < 64),
    node_index bigint NOT NULL CHECK (node_index >= 0),
    hash  bytea NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, node_index)
);

-- log_checkpoints: every checkpoint the sequencer signed, by tree size (what /v1/audit/checkpoint serves and
-- what the records' inclusion proofs point to).
CREATE TABLE log_checkpoints (
    tree_size  bigint PRIMARY KEY CHECK (tree_size >= 0),
    root       bytea NOT NULL CHECK (length(root) = 32),
    note       text NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE FUNCTION torres_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the transparency log is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER log_nodes_append_only BEFORE UPDATE OR DELETE ON log_nodes
    FOR EACH ROW EXECUTE FUNCTION torres_log_append_only();
CREATE TRIGGER log_checkpoints_append_only BEFORE UPDATE OR DELETE ON log_checkpoints
    FOR EACH ROW EXECUTE FUNCTION torres_log_append_only();
CREATE TRIGGER log_leaves_no_delete BEFORE DELETE ON log_leaves
    FOR EACH ROW EXECUTE FUNCTION torres_log_append_only();
CREATE TRIGGER log_leaves_once BEFORE UPDATE ON log_leaves
    FOR EACH ROW WHEN (OLD.leaf_index IS NOT NULL OR NEW.game_id <> OLD.game_id OR NEW.version <> OLD.version
                       OR NEW.head_hash <> OLD.head_hash)
    EXECUTE FUNCTION torres_log_append_only();
CREATE TRIGGER log_no_truncate BEFORE TRUNCATE ON log_leaves
    FOR EACH STATEMENT EXECUTE FUNCTION torres_log_append_only();

CREATE FUNCTION torres_log_leaf() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO log_leaves (game_id, version, head_hash, queued_at)
    VALUES (NEW.game_id, NEW.version, NEW.hash, NEW.created_at);
    RETURN NULL;
END $$;
CREATE TRIGGER events_log_leaf AFTER INSERT ON events
    FOR EACH ROW WHEN (NEW.type = 'game_ended') EXECUTE FUNCTION torres_log_leaf();

-- Games that ended before this migration are logged too, in the order they ended.
INSERT INTO log_leaves (game_id, version, head_hash, queued_at)
SELECT game_id, version, hash, created_at FROM events WHERE type = 'game_ended' ORDER BY position;
