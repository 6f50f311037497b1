"""The event store contract, shared by the PostgreSQL and SQLite backends.

Modelled on the ``eventsourcing`` library's recorders: one protocol, one module per backend, and
database integrity errors surfacing as one domain error (:class:`VersionConflict`). Besides the
per-game streams the store keeps what must change *in the same transaction* as an append:

* ``games``: the summary projection (status, version, scores ...) that lists and filters read, with the game's
  tenant and visibility, fixed at creation;
* ``commands``: client command ids, so a retried command appends nothing and returns the original;
* ``ai_turns``: an outbox row when an AI seat is to move, so a worker can never miss a turn;
* ``game_secrets``: the seed and seat-token hashes, which no event ever contains before the end;
* ``seat_tokens``: reissued and revoked seat tokens (hashes), one generation per row, never in the public log;
* ``stream_tickets``: single-use stream tickets (hashes), deleted when redeemed;
* ``log_leaves``: a finished game's head, queued for the transparency log by a trigger on its ``game_ended``
  event; the sequencer later gives it its leaf index, stores the tree's ``log_nodes`` and signs a
  ``log_checkpoints`` row, all in one transaction of its own (:meth:`EventStore.integrate_log`);
* ``webhook_outbox``: the webhooks the appended events cause for their tenant, delivered at least once
  by a worker that claims due rows under a lease and records every attempt on the row (the delivery log).

Beside the log, never in it: ``analyses``, the post-game analyses of finished games (a projection derived from the
log, keyed by game, engine version and depth; written by the AI workers, with its ``analysis.ready`` webhook in the
same transaction).

Snapshots are a rebuildable cache and are written outside append transactions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from torres_audit.chain import chain_hash, content_hash
from torres_audit.merkle import perfect_subtrees
from torres_game.errors import VersionConflict
from torres_online.lifecycle import format_time

__all__ = [
    "DEFAULT_VISIBILITY",
    "EVERY_GAME",
    "VISIBILITIES",
    "AiTurn",
    "AnalysisRow",
    "AppendResult",
    "EventStore",
    "GameExists",
    "GameFilter",
    "GameRecord",
    "GameSecret",
    "ListDialect",
    "LogCheckpoint",
    "LogIntegration",
    "LogLeaf",
    "NewEvent",
    "PendingLeaf",
    "SeatTokenBook",
    "SeatTokenRow",
    "Snapshot",
    "StoredEvent",
    "StreamTicket",
    "VersionConflict",
    "WebhookDelivery",
    "WebhookOutcome",
    "WebhookRow",
    "list_filters",
]

SCHEMA_VERSION = 1
#: Who may watch a game, chosen at creation (docs/security.md): ``public`` (anyone with the id, and the tenant may
#: show it in its lobby), ``unlisted`` (anyone with the id), ``private`` (seat tokens, the tenant's key, the
#: operator, spectator tokens the tenant issued).
VISIBILITIES = ("public", "unlisted", "private")
#: A game created without one: ``unlisted``. Spectators who are given the id may watch (what the web client's
#: invitation links and replays rely on), but the game is never advertised; a portal that wants it in its public
#: lobby says ``public``, one that wants it closed ``private``. Closed by default would break every spectator link;
#: listed by default would advertise games their players never chose to show.
DEFAULT_VISIBILITY = "unlisted"


class GameExists(Exception):
    """``create_game`` with a game id that is already taken (an idempotent creation sent again)."""


@dataclass(frozen=True)
class NewEvent:
    """An event before it is stored: the store assigns version, time, hashes and position."""

    type: str
    payload: dict[str, Any]
    schema_version: int = SCHEMA_VERSION


@dataclass(frozen=True)
class StoredEvent:
    position: int
    game_id: str
    version: int
    type: str
    payload: dict[str, Any]
    schema_version: int
    created_at: str
    command_id: str
    prev_hash: str
    hash: str

    def recomputed_hash(self) -> str:
        return chain_hash(self.prev_hash, content_hash(
            game_id=self.game_id, version=self.version, type=self.type, payload=self.payload,
            schema_version=self.schema_version, created_at=self.created_at, command_id=self.command_id,
        ))

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "game_id": self.game_id,
            "version": self.version,
            "type": self.type,
            "payload": self.payload,
            "schema_version": self.schema_version,
            "created_at": self.created_at,
            "command_id": self.command_id,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


@dataclass(frozen=True)
class AppendResult:
    """What an append produced; a repeated command id returns the original with ``duplicate=True``."""

    game_id: str
    events: tuple[StoredEvent, ...]
    duplicate: bool = False
    fingerprint: str | None = None

    @property
    def version(self) -> int:
        return self.events[-1].version


@dataclass(frozen=True)
class GameRecord:
    """The ``games`` row: public facts plus the summary projection kept current by appends."""

    game_id: str
    created_at: str
    edition: str
    master: bool
    options: dict[str, Any]
    seats: list[dict[str, Any]]
    version: int = 0
    status: str = "active"
    summary: dict[str, Any] = field(default_factory=dict)
    tenant: str = "default"  # the portal that created it; never changes (migration 0007 / sqlite 0004)
    visibility: str = "public"  # one of VISIBILITIES; never changes
    external_id: str | None = None  # the portal's own id for the game (postgres 0011 / sqlite 0007)
    labels: list[str] = field(default_factory=list)  # what the portal files the game under
    #: Whether its events cause webhooks: its tenant had an endpoint when it was created (postgres 0012 /
    #: sqlite 0008). Stored, so every process that appends to it (an AI worker, an enforcer: no tenants file there)
    #: writes them alike.
    webhooks: bool = False


@dataclass(frozen=True)
class GameFilter:
    """Which games a list holds: each filter set narrows it. ``tenant`` None: every tenant's; a seat's
    ``player_id``; the portal's ``external_id``; a ``label`` the game carries; creation strictly after/before."""

    tenant: str | None = None
    status: str | None = None
    player_id: str | None = None
    visibility: str | None = None
    external_id: str | None = None
    label: str | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None


#: The list's filter that leaves every game in.
EVERY_GAME = GameFilter()


@dataclass(frozen=True)
class GameSecret:
    """What must never appear in an event before the end: the seed and the seat-token hashes."""

    seed: int
    token_hashes: list[str | None]


@dataclass(frozen=True)
class SeatTokenRow:
    """One ``seat_tokens`` row: a reissued token's hash (``token_hash``) or a revocation (None)."""

    seat: int
    generation: int
    token_hash: str | None
    issued_at: datetime
    expires_at: datetime | None


@dataclass(frozen=True)
class SeatTokenBook:
    """What deciding on a seat token needs besides the cached :class:`GameSecret`, read in one query on every
    use (so a revocation in any process counts at once): the game's status, when it last changed (for an
    ended game: its end), and every reissue and revocation, by generation."""

    status: str
    updated_at: datetime
    rows: tuple[SeatTokenRow, ...]


@dataclass(frozen=True)
class StreamTicket:
    """A redeemed stream ticket: the game it opens and the reader it stands for."""

    game_id: str
    seat: int | None
    full: bool
    expires_at: datetime


@dataclass(frozen=True)
class Snapshot:
    game_id: str
    version: int
    position: dict[str, Any]
    lifecycle: dict[str, Any] | None = None  # torres_online.lifecycle.Lifecycle.to_json(); None in old snapshots


@dataclass(frozen=True)
class AiTurn:
    game_id: str
    seat: int
    version: int
    created_at: str = ""
    done: bool = False


@dataclass(frozen=True)
class AnalysisRow:
    """A post-game analysis: requested (``pending``, with the turns analysed so far) or ``ready`` (its result)."""

    game_id: str
    engine_version: str
    depth: str
    status: str
    requested_at: str
    updated_at: str
    completed_at: str | None = None
    progress: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    cpu_seconds: float = 0.0


@dataclass(frozen=True)
class AppendOptions:
    """What an append checks and writes beside its events, in its one transaction: one bundle that every backend
    reads, so that a new effect of an append is a field here, not one more parameter of three signatures.

    * ``fingerprint``: the request's digest, kept with the command id (a repeat with another body is refused).
    * ``status``, ``summary``: the games row's new status and summary projection (None: unchanged).
    * ``ai_turn``: a due AI turn, recorded in the outbox; ``close_ai_turns``: the game's earlier due turns are
      done (the game moved on).
    * ``now``: the time recorded on the events (default: the store's clock at the append); the service passes
      the moment it checked the seat's deadline against, so clocks folded from the log agree with it.
    * ``seat_token`` (seat, generation): the seat token the actor presented, which the service decided on from
      rows it read earlier; the append raises :class:`SeatTokenRevoked` instead when a later generation of that
      seat's token has been recorded (checked first, under the append's lock), so a revocation anywhere counts at
      once without a read of the token rows on every action.
    * ``webhooks``: the outbox rows the events cause (a duplicate or a refused append writes none). A delivery
      id names a game, a version and a type, so it is written once; the outbox refuses a second (the append
      fails) rather than hide the fault.
    """

    fingerprint: str | None = None
    status: str | None = None
    summary: dict[str, Any] | None = None
    ai_turn: AiTurn | None = None
    close_ai_turns: bool = False
    now: datetime | None = None
    seat_token: tuple[int, int] | None = None
    webhooks: Sequence[WebhookRow] = ()


#: An append of events and nothing else.
PLAIN = AppendOptions()


@dataclass(frozen=True)
class PendingLeaf:
    """A finished game's head waiting for the sequencer (the leaf is its head statement, docs/audit.md s. 7)."""

    game_id: str
    version: int
    head_hash: str
    queued_at: datetime


@dataclass(frozen=True)
class LogLeaf:
    """An integrated leaf of the transparency log."""

    leaf_index: int
    game_id: str
    version: int
    head_hash: str
    leaf_hash: bytes


@dataclass(frozen=True)
class LogCheckpoint:
    """A signed checkpoint the sequencer stored: the tree size, its root and the signed note."""

    tree_size: int
    root: bytes
    note: str


@dataclass(frozen=True)
class LogIntegration:
    """What the sequencer's ``build`` hands back to :meth:`EventStore.integrate_log` to write in one transaction:
    the leaf index and hash of each pending leaf taken, the new complete subtrees, and the signed checkpoint of
    the new tree."""

    leaves: tuple[tuple[str, int, bytes], ...]  # (game_id, leaf_index, leaf_hash)
    nodes: tuple[tuple[int, int, bytes], ...]  # (level, node_index, hash)
    checkpoint: LogCheckpoint


@dataclass(frozen=True)
class WebhookRow:
    """A webhook to write to the outbox with the append that causes it: ``payload`` is the whole body posted."""

    delivery_id: str
    tenant: str
    type: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class WebhookDelivery:
    """An outbox row: the webhook and its delivery log (status, attempts, the endpoint's last answer)."""

    seq: int
    delivery_id: str
    tenant: str
    game_id: str
    type: str
    payload: dict[str, Any]
    created_at: str
    status: str  # "pending" | "delivered" | "failed"
    attempts: int
    next_attempt_at: str
    last_status: int | None = None
    last_error: str | None = None
    delivered_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"cursor": self.seq, "delivery_id": self.delivery_id, "type": self.type, "game_id": self.game_id,
                "created_at": self.created_at, "status": self.status, "attempts": self.attempts,
                "last_status": self.last_status, "last_error": self.last_error, "delivered_at": self.delivered_at,
                "payload": self.payload}


@dataclass(frozen=True)
class WebhookOutcome:
    """What a worker records after an attempt: ``delivered``; else ``retry_at`` (None: given up, ``failed``)."""

    seq: int
    delivered: bool
    status: int | None = None
    error: str | None = None
    retry_at: datetime | None = None


#: The sequencer's pure part: (tree size, frontier hashes, pending leaves) -> what to write.
LogBuild = Callable[[int, list[bytes], list[PendingLeaf]], LogIntegration]


class EventStore(Protocol):
    """The persistence contract; ``tests/game/test_store_contract.py`` runs it on every backend."""

    backend: str

    def create_game(
        self, game: GameRecord, secret: GameSecret, events: Sequence[NewEvent], command_id: str,
        *, ai_turn: AiTurn | None = None, now: datetime | None = None, webhooks: Sequence[WebhookRow] = (),
    ) -> AppendResult:
        """Insert the game row, its secrets and its first events (versions 1..n) atomically; raise
        :class:`GameExists`, writing nothing, when the game id is taken. ``now``: the events' time;
        ``webhooks``: outbox rows written in the same transaction."""
        ...

    def append(self, game_id: str, expected_version: int, events: Sequence[NewEvent], command_id: str,
               options: AppendOptions = PLAIN) -> AppendResult:
        """Append after ``expected_version`` in one transaction, or raise :class:`VersionConflict`; with it, what
        ``options`` says (:class:`AppendOptions`).

        A command id already recorded for the game returns the original result (and its
        fingerprint) without appending, whatever ``expected_version`` says: that is what makes a
        client's retry after a lost response safe.
        """
        ...

    def find_command(self, game_id: str, command_id: str) -> AppendResult | None: ...

    def read(
        self, game_id: str, *, after: int = 0, up_to: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]: ...

    def get_game(self, game_id: str) -> GameRecord | None: ...

    def current_version(self, game_id: str) -> int | None: ...

    def list_games(self, where: GameFilter = EVERY_GAME, *, before: tuple[str, str] | None = None,
                   limit: int = 50) -> list[GameRecord]:
        """Games newest first (``created_at`` then ``game_id``, both descending), filtered by ``where`` (every
        filter it sets; by default none), and ``before``, a keyset cursor: only games listed after the game whose
        ``(created_at, game_id)`` it is (so pages stay stable while new games are created)."""
        ...

    def get_secret(self, game_id: str) -> GameSecret | None: ...

    def seat_token_book(self, game_id: str) -> SeatTokenBook | None:
        """The game's status, last change and seat-token rows (None: no such game), one round trip."""
        ...

    def add_seat_token(
        self, game_id: str, seat: int, token_hash: str | None, *, issued_at: datetime, expires_at: datetime | None,
    ) -> int:
        """Record the seat's next generation (a reissued token's hash, or None for a revocation); returns it.
        Concurrent calls for one seat get distinct generations (the primary key; a loser retries)."""
        ...

    def add_stream_ticket(self, ticket_hash: str, ticket: StreamTicket) -> None:
        """Store a new ticket (and drop the expired ones: they can never be redeemed)."""
        ...

    def take_stream_ticket(self, ticket_hash: str) -> StreamTicket | None:
        """Delete the ticket and return it: at most one caller, in any process, ever gets it back."""
        ...

    def notifications(self, *, after: int = 0, limit: int = 100, tenant: str | None = None) -> list[StoredEvent]:
        """The global log: every game's events in commit order, by ascending ``position``; with ``tenant``, only
        the events of that tenant's games (the positions of others' events are skipped, never renumbered)."""
        ...

    def save_snapshot(self, snapshot: Snapshot) -> None: ...

    def latest_snapshot(self, game_id: str, *, at_most: int | None = None) -> Snapshot | None: ...

    def pending_ai_turns(self, *, limit: int = 100) -> list[AiTurn]: ...

    def due_games(self, now: str, *, limit: int = 100) -> list[str]:
        """Active games whose summary ``deadline`` (``format_time`` text) is at or before ``now``, earliest
        first: what the deadline enforcer sweeps."""
        ...

    def complete_ai_turn(self, game_id: str, version: int) -> None: ...

    def request_analysis(self, game_id: str, engine_version: str, depth: str, *, now: datetime) -> AnalysisRow:
        """The analysis row of (game, engine version, depth): inserted ``pending`` unless there is one."""
        ...

    def get_analysis(self, game_id: str, engine_version: str, depth: str) -> AnalysisRow | None: ...

    def analysis_progress(self, row: AnalysisRow, progress: list[dict[str, Any]], cpu_seconds: float,
                          *, now: datetime) -> None:
        """Keep the turns analysed so far of a pending analysis (a slice's work) and the CPU added."""
        ...

    def complete_analysis(self, row: AnalysisRow, result: dict[str, Any], cpu_seconds: float, *, now: datetime,
                          webhooks: Sequence[WebhookRow] = ()) -> bool:
        """Store a pending analysis's result and its webhooks in one transaction; False if it was ready already
        (a twin finished first: nothing written)."""
        ...

    def pending_analyses(self, *, limit: int = 100) -> list[AnalysisRow]:
        """Pending analyses, the least recently advanced first (the sweepers re-send those left behind)."""
        ...

    # -- webhooks -----------------------------------------------------------------------------

    def claim_webhooks(self, owner: str, *, limit: int, per_endpoint: int, busy: Mapping[str, int],
                       served: Mapping[str, int], lease: float, clock: Callable[[], datetime]
                       ) -> list[WebhookDelivery]:
        """Lease up to ``limit`` due pending rows (``next_attempt_at`` passed, no live lease) to ``owner`` until
        ``lease`` seconds from now, in a transaction of its own that is committed before anything is posted. Fair
        between tenants (each tenant's endpoint is one queue): every tenant's oldest due row comes before any
        tenant's second, and among those the tenants the caller served longest ago first (``served``: a number
        that grows with each claim that served the tenant; a tenant not in it comes first of all). A tenant gets
        at most ``per_endpoint`` minus its ``busy`` count (the attempts the caller has in flight to it, or
        ``per_endpoint`` for an endpoint the caller is not posting to now). No two claims lease one row at once.
        Returns the rows in ``seq`` order."""
        ...

    def record_webhook(self, owner: str, outcome: WebhookOutcome, *, clock: Callable[[], datetime]) -> bool:
        """Record one attempt of a row leased to ``owner``, in a short transaction of its own: one more attempt,
        its answer, and the row ``delivered``, ``pending`` again from ``retry_at``, or ``failed``; the lease ends.
        Refused (False, nothing written) when the row is no longer ``owner``'s: its lease ran out and another
        claim took it, or it was recorded already."""
        ...

    def webhook_deliveries(self, *, after: int = 0, limit: int = 100, tenant: str | None = None
                           ) -> list[WebhookDelivery]:
        """The outbox in ``seq`` order after the cursor ``after`` (every status), a tenant's only with ``tenant``;
        like :meth:`notifications`, a row committed later never has a lower seq than one already read."""
        ...

    def webhook_backlog(self) -> int:
        """How many webhook deliveries are pending."""
        ...

    def webhook_backlogs(self, *, clock: Callable[[], datetime]) -> dict[str, tuple[int, float]]:
        """Each tenant with pending webhook deliveries: how many, and the age in seconds of the oldest."""
        ...

    # -- the transparency log ---------------------------------------------------------------

    def integrate_log(self, build: LogBuild, *, limit: int = 1000) -> LogCheckpoint | None:
        """One sequencer step, in one transaction that only one sequencer holds at a time (others return None at
        once): read the tree's size and frontier (the hashes of ``merkle.perfect_subtrees(0, size)``) and up to
        ``limit`` pending leaves in queue order, call ``build``, write its leaf indexes, nodes and checkpoint.
        Returns the checkpoint written, or None when another sequencer held the lock or there was nothing to do
        (no pending leaf, and a checkpoint exists already). A crash anywhere before the commit writes nothing."""
        ...

    def log_checkpoint(self, tree_size: int | None = None) -> LogCheckpoint | None:
        """The latest checkpoint, or the one of ``tree_size``; None when there is none."""
        ...

    def log_nodes(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        """The stored complete subtrees among ``keys`` ((level, node_index) pairs), in one query."""
        ...

    def log_leaf(self, *, game_id: str | None = None, leaf_hash: bytes | None = None) -> LogLeaf | None:
        """The integrated leaf of a game, or of a leaf hash (None: not integrated, or unknown)."""
        ...

    def log_pending(self) -> int:
        """How many finished games wait for the sequencer."""
        ...

    def add_log_cosignatures(self, tree_size: int, lines: dict[str, str]) -> None:
        """Keep witnesses' cosignature lines ({witness vkey: line}) of the checkpoint of ``tree_size``; a witness
        that already cosigned that checkpoint keeps its first line."""
        ...

    def log_cosignatures(self, tree_size: int) -> dict[str, str]:
        """{witness vkey: cosignature line} of the checkpoint of ``tree_size``."""
        ...

    def log_witnessed_size(self, witness: str) -> int:
        """The largest tree size the witness of that vkey cosigned here (0: none)."""
        ...

    def log_cosigned_size(self, witnesses: Sequence[str], quorum: int) -> int | None:
        """The largest tree size cosigned by at least ``quorum`` of ``witnesses`` (vkeys); None: none is."""
        ...

    def migrate(self) -> list[int]:
        """Apply pending numbered migrations; returns the numbers applied now."""
        ...

    def ping(self) -> None:
        """Raise if the database cannot be reached."""
        ...

    def migration_status(self) -> tuple[list[int], list[int]]:
        """(applied, pending) migration numbers."""
        ...

    def close(self) -> None: ...

    @property
    def closed(self) -> bool:
        """True once ``close`` ran: background loops (the deadline enforcer) stop instead of failing forever."""
        ...


@dataclass(frozen=True)
class ListDialect:
    """How a backend's SQL spells the games list's filters: its parameter mark, the clause and parameter that find a
    player's games in ``seats``, how a time is passed, and the keyset clause that pages past ``before``."""

    mark: str
    player_clause: str
    player_param: Callable[[str], Any]
    label_clause: str
    label_param: Callable[[str], Any]
    time_param: Callable[[datetime], Any]
    before_clause: str


def list_filters(dialect: ListDialect, where: GameFilter, before: tuple[str, str] | None
                 ) -> tuple[str, list[Any]]:
    """The WHERE clause of a games list and its parameters: only the filters given, so that the planner sees a
    plain ``tenant = $1 ORDER BY created_at DESC, game_id DESC`` and walks ``games_tenant_created``."""
    clauses: list[str] = []
    params: list[Any] = []
    for column, value in (("tenant", where.tenant), ("status", where.status), ("visibility", where.visibility),
                          ("external_id", where.external_id)):
        if value is not None:
            clauses.append(f"{column} = {dialect.mark}")
            params.append(value)
    for clause, param, value in ((dialect.player_clause, dialect.player_param, where.player_id),
                                 (dialect.label_clause, dialect.label_param, where.label)):
        if value is not None:
            clauses.append(clause)
            params.append(param(value))
    for comparison, moment in ((">", where.created_after), ("<", where.created_before)):
        if moment is not None:
            clauses.append(f"created_at {comparison} {dialect.mark}")
            params.append(dialect.time_param(moment))
    if before is not None:
        clauses.append(dialect.before_clause)
        params.extend(before)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def content_hashes(
    game_id: str, first_version: int, events: Sequence[NewEvent], command_id: str, created_at: str
) -> list[str]:
    """The content hash of each new event (versions from ``first_version``), computed once per append: the
    PostgreSQL backend sends them to the database and then chains the same values in :func:`stamp`."""
    return [
        content_hash(game_id=game_id, version=first_version + offset, type=event.type, payload=event.payload,
                     schema_version=event.schema_version, created_at=created_at, command_id=command_id)
        for offset, event in enumerate(events)
    ]


def stamp(
    game_id: str, first_version: int, prev_hash: str, events: Sequence[NewEvent], command_id: str,
    now: datetime, positions: Sequence[int] | None = None, *, created_at: str | None = None,
    contents: Sequence[str] | None = None,
) -> list[StoredEvent]:
    """Give new events their versions, time and hash chain (positions are filled in by the backend).

    ``created_at`` (``format_time(now)``) and ``contents`` (:func:`content_hashes`) may be passed when the
    caller already computed them; the chain is the same, ``SHA-256(prev_hash || content_hash)`` per event.
    """
    if created_at is None:
        created_at = format_time(now)
    if contents is None:
        contents = content_hashes(game_id, first_version, events, command_id, created_at)
    out: list[StoredEvent] = []
    for offset, event in enumerate(events):
        digest = chain_hash(prev_hash, contents[offset])
        out.append(
            StoredEvent(
                position=positions[offset] if positions else 0, game_id=game_id, version=first_version + offset,
                type=event.type, payload=event.payload, schema_version=event.schema_version,
                created_at=created_at, command_id=command_id, prev_hash=prev_hash, hash=digest,
            )
        )
        prev_hash = digest
    return out


def build_log_batch(
    conn: Any, marker: str, queued_at: Callable[[Any], datetime],
    log_nodes: Callable[[Any, Sequence[tuple[int, int]]], dict[tuple[int, int], bytes]],
    build: LogBuild, limit: int,
) -> LogIntegration | None:
    """The middle of a sequencer step (:meth:`EventStore.integrate_log`), the same on every backend: on ``conn``,
    inside the transaction and lock the backend took, read the tree's size, up to ``limit`` pending leaves in queue
    order and the frontier's nodes, and hand them to ``build``. ``marker`` is the SQL dialect's parameter marker,
    ``queued_at`` turns the driver's ``queued_at`` value into a datetime and ``log_nodes`` is the backend's node
    read on ``conn``. None: nothing to do (no pending leaf, and a checkpoint exists already)."""
    head = conn.execute("SELECT tree_size FROM log_checkpoints ORDER BY tree_size DESC LIMIT 1").fetchone()
    size = head[0] if head else 0
    pending = [PendingLeaf(r[0], r[1], r[2], queued_at(r[3])) for r in conn.execute(
        "SELECT game_id, version, head_hash, queued_at FROM log_leaves WHERE leaf_index IS NULL"
        f" ORDER BY seq LIMIT {marker}", (limit,)).fetchall()]
    if not pending and head is not None:
        return None
    keys = perfect_subtrees(0, size)
    nodes = log_nodes(conn, keys)
    if len(nodes) != len(keys):
        raise RuntimeError(f"the log's node table lacks part of the frontier of tree size {size}")
    return build(size, [nodes[k] for k in keys], pending)
