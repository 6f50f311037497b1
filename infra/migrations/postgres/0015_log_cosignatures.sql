-- Witnesses' cosignatures (c2sp.org/tlog-cosignature) of the transparency log's checkpoints: one row per checkpoint
-- and witness (its vkey), the note signature line the witness answered, stored by the sequencer once it has it.
-- Append-only like the rest of the log: a cosignature is evidence of what a witness saw.
CREATE TABLE log_cosignatures (
    tree_size  bigint NOT NULL REFERENCES log_checkpoints (tree_size),
    witness    text NOT NULL,
    line       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tree_size, witness)
);
CREATE INDEX log_cosignatures_witness ON log_cosignatures (witness, tree_size DESC);
CREATE TRIGGER log_cosignatures_append_only BEFORE UPDATE OR DELETE ON log_cosignatures
    FOR EACH ROW EXECUTE FUNCTION torres_log_append_only();
