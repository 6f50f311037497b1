"""The offline audit of Torres games: a game record checked without trusting the service that wrote it.

docs/audit.md is the specification; this package is its reference implementation, and also the home of the
hashes and signatures the game service itself writes with, so the two can never drift apart. What a log's events
mean (the event types, the seed, clocks, timeouts, forfeits, undo) are the online play rules, :mod:`torres_online`,
which the service enforces and the replay checks against:

* :mod:`torres_audit.chain`     canonical JSON, event hashes and the hash chain
* :mod:`torres_audit.replay`    every event checked against the rules and the online play rules
* :mod:`torres_audit.merkle`    the RFC 9162 Merkle tree and its proofs
* :mod:`torres_audit.note`      C2SP signed notes, Ed25519 keys, checkpoints
* :mod:`torres_audit.record`    the game record format and the signed head
* :mod:`torres_audit.verify`    the verifier of a record, and its report

``python -m torres_audit verify record.json [--checkpoint cp.txt] [--key VKEY]`` runs it from a shell.
"""
