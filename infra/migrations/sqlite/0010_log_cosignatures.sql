-- Witnesses' cosignatures of the log's checkpoints (postgres/0015 says why); append-only.
CREATE TABLE log_cosignatures (
    tree_size  INTEGER NOT NULL REFERENCES log_checkpoints (tree_size),
    witness    TEXT NOT NULL,
    line       TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now')),
    PRIMARY KEY (tree_size, witness)
);
CREATE INDEX log_cosignatures_witness ON log_cosignatures (witness, tree_size DESC);
CREATE TRIGGER log_cosignatures_no_update BEFORE UPDATE ON log_cosignatures
BEGIN SELECT RAISE(ABORT, 'the transparency log is append-only: UPDATE on log_cosignatures refused'); END;
CREATE TRIGGER log_cosignatures_no_delete BEFORE DELETE ON log_cosignatures
BEGIN SELECT RAISE(ABORT, 'the transparency log is append-only: DELETE on log_cosignatures refused'); END;
