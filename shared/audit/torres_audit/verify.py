"""The verifier of a game record: every check docs/audit.md asks for, and a report a person can read.

Each check runs on its own and reports its own first problem, so a forged record shows everything that
gives it away (a re-chained illegal move fails the replay at its version *and* the signature at the head);
the report's verdict names the earliest problem in the log. Nothing here trusts the service: the seed is
checked against the commitment made at creation, every deal and draw is reproduced from it, every action
goes through the rules engine, and the head is checked against the service's published key and, when the
record carries one, against the transparency log's checkpoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torres_rules as tr
from torres_online.events import GAME_CREATED, GAME_ENDED, seed_commitment

from . import merkle
from .chain import Problem, check_chain, same
from .cosignature import NO_WITNESSES, Cosignature, WitnessPolicy
from .monitor import Log, MonitorError, Unreachable
from .note import Checkpoint, NoteError, Verifier, open_checkpoint, open_note
from .record import FORMAT, Record, RecordError, RecordEvent, loads, parse
from .replay import replay

OK, FAIL, SKIP, WARN = "ok", "FAIL", "skip", "warn"
#: Which check's problem is named first when two are found at the same version.
TIE_ORDER = {"format": 0, "chain": 1, "seed": 2, "replay": 3, "result": 4, "head": 5, "signature": 6, "inclusion": 7,
             "internal": 8}


@dataclass
class Check:
    """One thing the verifier looked at: its name, how it went, and what it saw or what is wrong."""

    name: str
    status: str
    detail: str
    problem: Problem | None = None


@dataclass
class Report:
    game_id: str | None
    summary: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(check.status != FAIL for check in self.checks)

    @property
    def first_problem(self) -> Problem | None:
        """The earliest problem in the log; on a tie, what is wrong with the game before what is wrong with its
        attestation (an altered event before the illegal move it became, a wrong score before the signature
        that no longer covers it)."""
        found = [(check.problem.version, TIE_ORDER.get(check.name, 9), check.problem)
                 for check in self.checks if check.problem is not None]
        return min(found, key=lambda item: item[:2])[2] if found else None

    def add(self, name: str, status: str, detail: str, problem: Problem | None = None) -> None:
        self.checks.append(Check(name, status, detail, problem))

    def fail(self, name: str, problem: Problem) -> None:
        self.add(name, FAIL, str(problem), problem)

    def text(self) -> str:
        lines = [self.summary]
        lines += [f"  {check.status:<5} {check.name:<10} {check.detail}" for check in self.checks]
        first = self.first_problem
        if first is None:
            warned = [c.name for c in self.checks if c.status == WARN]
            lines.append("VERIFIED" + (f" (with warnings: {', '.join(warned)})" if warned else ""))
        else:
            lines.append(f"REFUSED at version {first.version}: {first.reason}")
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        first = self.first_problem
        return {
            "game_id": self.game_id, "ok": self.ok, "summary": self.summary,
            "checks": [{"name": c.name, "status": c.status, "detail": c.detail} for c in self.checks],
            "first_problem": None if first is None else {"version": first.version, "reason": first.reason},
        }


def _is_seat_of(seat: int, creation: dict[str, Any]) -> bool:
    players = creation.get("players")
    return isinstance(players, int) and not isinstance(players, bool) and seat < players


def _short(digest: str) -> str:
    return f"{digest[:12]}…"


def _check_head(record: Record, report: Report) -> bool:
    last = record.events[-1]
    over = last.type == GAME_ENDED
    if record.head_version != last.version or record.head_hash != last.hash:
        report.fail("head", Problem(last.version, f"the head says version {record.head_version} hash "
                                                  f"{_short(record.head_hash)}, the events end at version "
                                                  f"{last.version} hash {_short(last.hash)}"))
        return False
    if (record.status == "over") != over:
        report.fail("head", Problem(last.version, f"the record says the game is {record.status}, but its last "
                                                  f"event is {last.type}"))
        return False
    report.add("head", OK, f"version {last.version}, hash {_short(last.hash)}, game {record.status}")
    return True


def _check_signature(record: Record, keys: Sequence[Verifier], report: Report) -> list[Verifier]:
    """The keys that signed the head (none when the signature does not verify)."""
    version = record.head_version
    try:
        own = Verifier.from_vkey(record.signature_key)
    except NoteError as exc:
        report.fail("signature", Problem(version, f"the record's signing key is unreadable: {exc}"))
        return []
    trusted = list(keys) or [own]
    try:
        note, signed = open_note(record.signature_note, trusted)
    except NoteError as exc:
        report.fail("signature", Problem(version, f"the signature over the head does not verify: {exc}"))
        return []
    if note.text != record.head_text():
        report.fail("signature", Problem(version, "the signed head is not this record's head: it says "
                                                  + " / ".join(note.text.strip().split("\n")[1:])))
        return []
    names = ", ".join(f"{v.name}+{v.key_id:08x}" for v in signed)
    if keys:
        report.add("signature", OK, f"head signed by {names} (a key you pinned with --key)")
    else:
        report.add("signature", WARN, f"head signed by {names}, the key the record names itself: pass the "
                                      "service's published key with --key to pin it")
    return signed


def _check_seed(record: Record, report: Report) -> bool:
    """True when the seed is revealed and matches the commitment (the replay can run)."""
    created = record.events[0]
    if created.type != GAME_CREATED or not same(record.creation, created.payload):
        report.fail("seed", Problem(1, "the record's creation parameters are not its game_created payload"))
        return False
    commitment = created.payload.get("seed_commitment")
    if record.status != "over":
        if record.seed is not None:
            report.fail("seed", Problem(record.head_version, "a running game's record reveals a seed"))
            return False
        report.add("seed", SKIP, f"secret until the game ends (commitment {_short(str(commitment))})")
        return False
    if record.seed is None:
        report.fail("seed", Problem(record.head_version, "a finished game's record must reveal its seed"))
        return False
    if seed_commitment(record.seed) != commitment:
        report.fail("seed", Problem(1, f"the revealed seed does not match the commitment {_short(str(commitment))} "
                                       "made at creation"))
        return False
    ended = _ended(record)
    revealed = None if ended is None else ended.payload.get("seed")
    if ended is not None and revealed != str(record.seed):
        report.fail("seed", Problem(record.head_version, "the record's seed is not the one game_ended reveals"))
        return False
    report.add("seed", OK, f"the revealed seed matches the commitment {_short(commitment)} made at creation")
    return True


def _replay_detail(record: Record, counts: dict[str, int], state: tr.State | None) -> str:
    parts = [f"{n} {what}" for what, n in counts.items() if n]
    deal = "deal, start player and decks from the seed"
    if state is not None and record.creation.get("master"):
        deal = "deal, start player, master card and decks from the seed"
    return f"{deal}; every event legal ({', '.join(parts) or 'no actions'})"


def _ended(record: Record) -> RecordEvent | None:
    """The game_ended event, wherever a (possibly forged) record has it: the head check says where it belongs."""
    return next((event for event in record.events if event.type == GAME_ENDED), None)


def _check_result(record: Record, report: Report) -> None:
    last = _ended(record)
    if record.status != "over":
        if record.result is not None:
            report.fail("result", Problem(record.head_version, "a running game's record has a result"))
        else:
            report.add("result", SKIP, "the game is not over")
        return
    if last is None:
        report.add("result", SKIP, "no game_ended among the events (see the head)")
        return
    if not same(record.result, last.payload):
        report.fail("result", Problem(last.version, f"the record's result {record.result} is not the one "
                                                    f"game_ended records"))
        return
    result = last.payload
    winner = result.get("winner")
    who = f"winner seat {winner}" if winner is not None else f"shared first place {result.get('winners')}"
    report.add("result", OK, f"scores {result.get('scores')}, ranks {result.get('ranks')}, {who}, "
                             f"{result.get('reason')}, {'rated' if result.get('rated') else 'unrated'}")


def _at_given_size(record: Record, cp: Checkpoint, given: Checkpoint, log: Log) -> str:
    """The head proved in the tree of the checkpoint given (another size than the record's), and the two trees
    proved one history, with proofs fetched from ``log``; raises :class:`merkle.ProofError` otherwise."""
    leaf = merkle.leaf_hash(record.head_text().encode())
    found = log.inclusion(leaf, given.size)
    if found is None:
        raise merkle.ProofError(f"the log at tree size {given.size} ({log.url}) does not hold this head")
    index, proof = found
    merkle.verify_inclusion(index, given.size, leaf, proof, given.root)
    old, new = (cp, given) if cp.size < given.size else (given, cp)
    merkle.verify_consistency(old.size, new.size, log.consistency(old.size, new.size, "the other checkpoint"),
                              old.root, new.root)
    return (f"the head is leaf {index} of {given.origin} at tree size {given.size} (the checkpoint given, proofs "
            f"fetched from {log.url}), a tree consistent with the record's of size {cp.size}")


def _check_inclusion(record: Record, keys: Sequence[Verifier], checkpoint: str | None, report: Report,
                     head_keys: Sequence[Verifier] = (), log: Log | None = None,
                     witnesses: WitnessPolicy = NO_WITNESSES) -> None:
    """Section 9. ``head_keys``: the keys that signed the head, none of which may sign for the log: a log's key
    is its own, else whoever holds the service's key could make a one-leaf "log" of any head it signs.
    ``witnesses``: the k-of-n cosignatures the record's checkpoint (and the one given) must carry."""
    version = record.head_version
    inclusion = record.inclusion
    if inclusion is None:
        if witnesses.quorum and record.status == "over":
            report.fail("inclusion", Problem(version, f"{witnesses.quorum} witnesses' cosignatures are required, "
                                                      "but the record holds no inclusion proof (its checkpoint is "
                                                      "not cosigned yet)"))
        elif checkpoint is not None:
            report.fail("inclusion", Problem(version, "a checkpoint was given, but the record holds no inclusion "
                                                      "proof to check against it"))
        else:
            report.add("inclusion", SKIP, "no inclusion proof in the record (no transparency log holds it yet)")
        return
    if record.status != "over":
        report.fail("inclusion", Problem(version, "only a finished game's head goes into the transparency log"))
        return
    try:
        log_key = Verifier.from_vkey(inclusion.log_key)
        trusted = list(keys) or [log_key]
        cp, signed = open_checkpoint(inclusion.checkpoint, trusted)
        if signed[0] in head_keys:
            raise NoteError(f"it is signed by {signed[0].name}+{signed[0].key_id:08x}, the key that signed the "
                            "game's head: a log has a key of its own, never the service's")
        given = None if checkpoint is None else open_checkpoint(checkpoint, trusted, origin=cp.origin)[0]
        if given is not None:
            if given.size != cp.size and log is None:
                raise NoteError(f"the record's proof is for tree size {cp.size}, the checkpoint given is of size "
                                f"{given.size}: fetch a proof for size {given.size} (--url)")
            if given.size == cp.size and given.root != cp.root:
                raise NoteError(f"the checkpoint given and the record's checkpoint disagree on the root of tree "
                                f"size {cp.size}: the log shows two different histories (keep both as evidence)")
    except NoteError as exc:
        report.fail("inclusion", Problem(version, f"the checkpoint does not verify: {exc}"))
        return
    cosigned: list[Cosignature] = []
    for which, text in (("the record's checkpoint", inclusion.checkpoint), ("the checkpoint given", checkpoint)):
        try:
            found = witnesses.check(text) if text is not None else []
        except NoteError as exc:
            report.fail("inclusion", Problem(version, f"{which} is not witnessed: {exc}"))
            return
        cosigned = cosigned or found
    witnessed = f"; {witnesses.describe(cosigned)}" if witnesses.witnesses else ""
    if inclusion.tree_size != cp.size:
        report.fail("inclusion", Problem(version, f"the proof is for tree size {inclusion.tree_size}, its "
                                                  f"checkpoint is of size {cp.size}"))
        return
    try:
        merkle.verify_inclusion(inclusion.leaf_index, inclusion.tree_size,
                                merkle.leaf_hash(record.head_text().encode()), inclusion.proof, cp.root)
    except merkle.ProofError as exc:
        report.fail("inclusion", Problem(version, f"the inclusion proof does not verify: {exc}"))
        return
    if given is not None and given.size != cp.size and log is not None:
        try:
            detail = _at_given_size(record, cp, given, log)
        except merkle.ProofError as exc:
            report.fail("inclusion", Problem(version, f"the checkpoint given does not hold this head as the log "
                                                      f"proves it: {exc}"))
            return
        except (MonitorError, Unreachable) as exc:
            report.fail("inclusion", Problem(version, f"no proof for the checkpoint given: {exc}"))
            return
        report.add("inclusion", OK if keys else WARN, detail + witnessed)
        return
    pinned = "pinned with --key" if keys else "the log key the record names itself: pin it with --key"
    source = " and the checkpoint given" if checkpoint is not None else ""
    report.add("inclusion", OK if keys else WARN,
               f"the head is leaf {inclusion.leaf_index} of {cp.origin} at tree size {cp.size}{source}, "
               f"signed by {', '.join(v.name for v in signed)} ({pinned}){witnessed}")


def verify_record(doc: Any, *, keys: Sequence[Verifier] = (), checkpoint: str | None = None,
                  log: Log | None = None, witnesses: WitnessPolicy = NO_WITNESSES) -> Report:
    """Verify a record document (parsed JSON, or its text). ``keys``: the keys the auditor trusts for the head
    signature and the log's checkpoints (without them the record's own keys are used, and the report warns);
    ``checkpoint``: a signed checkpoint obtained independently of the record, which the proof must match;
    ``log``: where to fetch the proofs when that checkpoint is of another tree size than the record's proof;
    ``witnesses``: the witnesses the auditor trusts and how many of them must have cosigned the checkpoints.

    Every input gets a report (docs/audit.md, section 10). The checks refuse what they foresee with the precise
    reason; an input that still makes one of them fail unforeseen is refused as not verified (check
    ``internal``), never passed and never a traceback: an auditor's tool is fed whatever an operator hands out."""
    try:
        return _verify(doc, keys, checkpoint, log, witnesses)
    except Exception as exc:  # the last resort named above; the tests fuzz that it is never reached
        game_id = doc.get("game_id") if isinstance(doc, dict) and isinstance(doc.get("game_id"), str) else None
        report = Report(game_id, "torres-audit: a record the verifier could not check to the end")
        report.fail("internal", Problem(0, f"the verifier failed on this input ({type(exc).__name__}), so it is "
                                           "not verified; please report the input to the verifier's maintainers"))
        return report


def _verify(doc: Any, keys: Sequence[Verifier], checkpoint: str | None, log: Log | None,
            witnesses: WitnessPolicy) -> Report:
    try:
        record = parse(doc)
    except RecordError as exc:
        game_id = doc.get("game_id") if isinstance(doc, dict) and isinstance(doc.get("game_id"), str) else None
        report = Report(game_id, f"torres-audit: {'game ' + game_id if game_id else 'a document'} that is not a "
                                 f"{FORMAT} record")
        report.fail("format", exc.problem)
        return report
    kind = record.reader["kind"]
    reader = ("complete" if kind == "full" else f"as seat {record.reader['seat']} sees it" if kind == "seat"
              else "as a spectator sees it")
    report = Report(record.game_id, f"torres-audit: game {record.game_id} ({FORMAT}), {record.status}, "
                                    f"{len(record.events)} events, {reader}")
    withheld = [e.version for e in record.events if e.content_hash is not None]
    if record.full and withheld:
        report.fail("format", Problem(withheld[0], "a full record withholds this event's payload"))
        return report
    if record.status == "over" and not record.full:
        report.fail("format", Problem(record.head_version, "a finished game's record is always full"))
        return report
    if kind == "seat" and not _is_seat_of(record.reader["seat"], record.creation):
        report.fail("format", Problem(0, f"the reader is seat {record.reader['seat']}, which a game of "
                                         f"{record.creation.get('players')!r} players does not have"))
        return report
    report.add("format", OK, "well-formed" + (f"; {len(withheld)} payloads withheld from this reader, their "
                                             "content hashes given" if withheld else ""))
    problem = check_chain(record.game_id, record.events, {e.version: e.content_hash for e in record.events
                                                          if e.content_hash is not None})
    if problem is not None:
        report.fail("chain", problem)
    else:
        report.add("chain", OK, f"{len(record.events)} events linked from the genesis hash, every hash recomputed"
                                + (" (withheld payloads by their content hash)" if withheld else ""))
    _check_head(record, report)
    head_keys = _check_signature(record, keys, report)
    if _check_seed(record, report):
        outcome = replay(record.events, record.seed or 0)
        if outcome.problem is not None:
            report.fail("replay", outcome.problem)
        else:
            report.add("replay", OK, _replay_detail(record, dict(outcome.counts), outcome.state))
    elif record.status != "over":
        report.add("replay", SKIP, "possible once the game ends and its seed is revealed")
    _check_result(record, report)
    _check_inclusion(record, keys, checkpoint, report, head_keys, log, witnesses)
    return report


def verify_text(data: str | bytes, *, keys: Sequence[Verifier] = (), checkpoint: str | None = None,
                log: Log | None = None, witnesses: WitnessPolicy = NO_WITNESSES) -> Report:
    """:func:`verify_record` of a record file's bytes; text that is not JSON as a record allows it (repeated
    members, NaN) is refused as a format problem like any other."""
    try:
        doc = loads(data)
    except RecordError as exc:
        report = Report(None, f"torres-audit: a document that is not a {FORMAT} record")
        report.fail("format", exc.problem)
        return report
    return verify_record(doc, keys=keys, checkpoint=checkpoint, log=log, witnesses=witnesses)
