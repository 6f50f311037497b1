-- The transparency log of finished games' heads (issue 28); see the PostgreSQL migration 0010 for the design.
-- Hashes are BLOBs, times format_time text.
CREATE TABLE log_leaves (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id       TEXT NOT NULL UNIQUE,
    version       INTEGER NOT NULL,
    head_hash     TEXT NOT NULL,
    queued_at     TEXT NOT NULL,
    leaf_index    INTEGER UNIQUE,
    leaf_hash     BLOB,
    integrated_at TEXT,
    CHECK ((leaf_index IS NULL) = (leaf_hash IS NULL) AND (leaf_index IS NULL) = (integrated_at IS NULL))
);
CREATE INDEX log_leaves_pending ON log_leaves (seq) WHERE leaf_index IS NULL;
CREATE INDEX log_leaves_hash ON log_leaves (leaf_hash) WHERE leaf_hash IS NOT NULL;
CREATE TABLE log_nodes (
    level INTEGER NOT NULL CHECK (level >= 0 AND level < 64),
    node_index INTEGER NOT NULL CHECK (node_index >= 0),
    hash  BLOB NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, node_index)
);
CREATE TABLE log_checkpoints (
    tree_size  INTEGER PRIMARY KEY CHECK (tree_size >= 0),
    root       BLOB NOT NULL CHECK (length(root) = 32),
    note       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TRIGGER log_nodes_no_update BEFORE UPDATE ON log_nodes
BEGIN SELECT RAISE(ABORT, 'the transparency log is append-only: UPDATE on log_nodes refused'); END;
CREATE TRIGGER log_nodes_no_delete BEFORE DELETE ON log_nodes
BEGIN SELECT RAISE(ABORT, 'the transparency log is append-only: DELETE on log_nodes refused'); END;
CREATE TRIGGER log_checkpoints_no_update BEFORE UPDATE ON log_checkpoints
BEGIN SELECT RAISE(ABORT, 'the transparency log is append-only: UPDATE on log_checkpoints refused'); END;
CREATE TRIGGER log_checkpoints_no_delete BEFORE DELETE ON log_checkpoints
BEGIN SELECT RAISE(ABORT, 'the transparency log is append-only: DELETE on log_checkpoints refused'); END;
CREATE TRIGGER log_leaves_no_delete BEFORE DELETE ON log_leaves
BEGIN SELECT RAISE(ABORT, 'the transparency log is append-only: DELETE on log_leaves refused'); END;
CREATE TRIGGER log_leaves_once BEFORE UPDATE ON log_leaves
WHEN OLD.leaf_index IS NOT NULL OR NEW.game_id <> OLD.game_id OR NEW.version <> OLD.version
     OR NEW.head_hash <> OLD.head_hash
BEGIN SELECT RAISE(ABORT, 'the transparency log is append-only: a leaf is integrated once'); END;
CREATE TRIGGER events_log_leaf AFTER INSERT ON events WHEN NEW.type = 'game_ended'
BEGIN
    INSERT INTO log_leaves (game_id, version, head_hash, queued_at)
    VALUES (NEW.game_id, NEW.version, NEW.hash, NEW.created_at);
END;
INSERT INTO log_leaves (game_id, version, head_hash, queued_at)
SELECT game_id, version, hash, created_at FROM events WHERE type = 'game_ended' ORDER BY position;
