"""The application layer: one method per use case, nothing about HTTP.

Callers pass plain values and a :class:`Credentials`; failures are :mod:`torres_game.errors`
values. Every write goes through :meth:`GameService._submit`, the single path that checks the
version, the turn and the rules before one atomic append, so the in-process bot, an external AI
worker and human players are held to exactly the same rules.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import math
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import torres_rules as tr
from torres_audit import lifecycle as lc
from torres_audit.chain import canonical_json, format_time
from torres_audit.events import GAME_ENDED
from torres_audit.note import Signer, Verifier
from torres_service.lru import LockedLru
from torres_service.principals import DEFAULT_TENANT, MissingScope

from . import events as ev
from . import metrics
from .access import (
    SPECTATOR_TTL_DEFAULT,
    Access,
    Caller,
    Credentials,
    GameInfo,
    SeatCredential,
    SeatTokens,
    token_hash,
)
from .config import DEV_LOG_SIGNER_NAME, DEV_SIGNER_NAME, Config
from .errors import (
    CommandIdReused,
    ExternalIdReused,
    Forbidden,
    GameNotFound,
    GameOver,
    IdempotencyKeyReused,
    IllegalActionError,
    NotFound,
    NotYourTurn,
    SeatForfeited,
    SeatHasNoToken,
    SeatPlayedByAi,
    SeatTokensReissued,
    ServiceError,
    StreamTicketInvalid,
    TimeUp,
    Unauthenticated,
    UndoDisabled,
    UndoUnavailable,
    ValidationFailed,
    VersionConflict,
)
from .records import build_record
from .redaction import FULL, Reader, redact_events
from .store.base import (
    DEFAULT_VISIBILITY,
    AiTurn,
    AppendOptions,
    AppendResult,
    EventStore,
    GameExists,
    GameFilter,
    GameRecord,
    GameSecret,
    NewEvent,
    SeatTokenBook,
    Snapshot,
    StoredEvent,
    StreamTicket,
    WebhookRow,
)
from .translog import TransparencyLog
from .verification import verify_log
from .waiting import Notice, SeatTokensChanged, WakeHub, hub_for, release_hub, wait_for_version
from .webhooks import WRITTEN, WebhookWorker, webhooks_for

log = logging.getLogger(__name__)

# Game ids of idempotent creations: uuid5 of the Idempotency-Key in this namespace.
_CREATION_KEYS = uuid.UUID("5d0c8e4a-7a51-4b52-9e7e-3f1d2c6b8a90")
#: No credentials: what in-process callers of the read methods are by default (a private game is then 404, as it
#: is to an anonymous HTTP client), so that leaving ``creds`` out never grants more than asking anonymously.
ANONYMOUS = Credentials()


@dataclass(frozen=True)
class Submitted:
    """The answer to an action: the body, and whether it replays an earlier identical command."""

    body: dict[str, Any]
    replayed: bool = False


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Folded:
    """A state and its lifecycle with their version and summary, so hot paths never recompute
    ``to_position()``."""

    version: int
    state: tr.State
    life: lc.Lifecycle
    summary: dict[str, Any]

    @classmethod
    def of(cls, version: int, state: tr.State, life: lc.Lifecycle) -> Folded:
        return cls(version, state, life, ev.summary_of(state, life))

    @property
    def to_move(self) -> int | None:
        """The seat to move, None once the game is over."""
        return self.summary["to_move"]

    @property
    def over(self) -> bool:
        return self.life.over or tr.is_over(self.state)


class _StateCache(LockedLru[str, Folded]):
    """Latest folded state per game (LRU): most requests only fold the events they haven't seen."""

    def put(self, game_id: str, folded: Folded) -> None:
        with self._lock:
            old = self._items.get(game_id)
            if old is None or old.version < folded.version:
                self._items[game_id] = folded
                self._items.move_to_end(game_id)
                while len(self._items) > self._size:
                    self._items.popitem(last=False)


def hub_key(store: EventStore) -> str:
    """Which database a store writes to: services on the same database in one process share a hub."""
    return f"{store.backend}:{getattr(store, 'url', None) or getattr(store, 'path', '')}"


class AiDriver(Protocol):
    """What the service tells of due AI turns; the drivers, and how a turn is played, are in ``ai_turns``."""

    def start(self, service: GameService) -> None:
        """Begin work; pick up turns left pending in the outbox by a previous process."""

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        """An AI seat is to move at ``version`` (already recorded in the outbox). Must not block."""

    def close(self) -> None: ...


class GameService:
    def __init__(self, store: EventStore, config: Config, driver: AiDriver, *, listen: bool = True) -> None:
        """``listen=False``: no PostgreSQL LISTEN connection, for processes where nobody waits on a game (the AI
        worker, the sweeper); their appends still notify the listeners of every other process."""
        self.store = store
        self.config = config
        self.driver = driver
        self.access = Access(config, seat_tokens=self._seat_tokens)
        # Signs game records (docs/audit.md); without TORRES_SIGNING_KEY, a key of this process only (a dev server).
        self.signer = Signer.from_skey(config.signing_key) if config.signing_key else Signer.generate(DEV_SIGNER_NAME)
        # The log signs with a key of its own (docs/audit.md section 9: a verifier refuses a checkpoint signed by
        # the key that signed the head); without TORRES_LOG_SIGNING_KEY, one of this process only.
        log_signer = (Signer.from_skey(config.log_signing_key) if config.log_signing_key
                      else Signer.generate(DEV_LOG_SIGNER_NAME))
        if log_signer.verifier() == self.signer.verifier():
            raise ValueError("TORRES_LOG_SIGNING_KEY is TORRES_SIGNING_KEY: the transparency log needs a key of its "
                             "own (python -m torres_audit keygen <name>), or every record's inclusion is refused")
        #: Whether the log's checkpoints would be signed by a key this process generated (no key configured).
        self.ephemeral_log_key = not config.log_signing_key
        self.translog = TransparencyLog(store, log_signer, batch=config.log_batch,
                                        published=tuple(Verifier.from_vkey(k) for k in config.log_published_keys))
        self._sequencer: threading.Thread | None = None
        self._states = _StateCache(config.state_cache_size)
        self._infos: dict[str, GameInfo] = {}
        # each game's seat tokens as last read (current, superseded), and when
        self._token_books: dict[str, tuple[tuple[SeatCredential, ...], tuple[SeatCredential, ...], float]] = {}
        self._infos_lock = threading.Lock()
        listen_url = getattr(store, "url", None) if listen and store.backend == "postgres" else None
        self._hub_key = hub_key(store) + ("" if listen else ":quiet")  # not a listening service's
        self.hub: WakeHub = hub_for(self._hub_key, max_open=config.max_streams, listen_url=listen_url)
        self._listening = listen
        self._token_changes = 0  # bumped whenever a notice may have changed some game's seat tokens
        self.hub.watch(self._forget_seat_tokens)
        self.now: Callable[[], datetime] = utcnow  # the clock every recorded event time comes from (tests set it)
        self._enforcer: threading.Thread | None = None
        #: The webhook delivery worker of this process (``webhook_interval`` > 0), woken by its appends.
        self.webhook_worker: WebhookWorker | None = None
        self._webhook_thread: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self) -> None:
        self.driver.start(self)
        if self.config.enforcer_interval > 0:
            self._enforcer = threading.Thread(target=self.run_enforcer, args=(self._stop,), name="torres-enforcer",
                                              daemon=True)
            self._enforcer.start()
        if self.config.log_interval > 0 and self.ephemeral_log_key and self.store.backend == "postgres":
            # Every replica of a shared database would sign with a key of its own, changing at each restart: a
            # log whose checkpoints nobody can pin, and whose key history no monitor can follow. So a process
            # without a configured key signs nothing; the finished games wait queued (nothing is lost) for a
            # process that has one (docs/operations.md, "The transparency log").
            log.error("transparency log: no TORRES_LOG_SIGNING_KEY on a shared PostgreSQL "
                      "database; this process runs no sequencer (finished games stay queued until one with a "
                      "configured key, or `python -m torres_game sequence`, integrates them)")
        elif self.config.log_interval > 0:
            self._sequencer = threading.Thread(target=self.translog.run, args=(self._stop, self.config.log_interval),
                                               name="torres-sequencer", daemon=True)
            self._sequencer.start()
        if self.config.webhook_interval > 0:
            self.webhook_worker = WebhookWorker(self.store, self.access.registries, self.config)
            self._webhook_thread = threading.Thread(target=self.webhook_worker.run, args=(self._stop,),
                                                    name="torres-webhooks", daemon=True)
            self._webhook_thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._sequencer is not None:
            self._sequencer.join(timeout=10)
            self._sequencer = None
        if self._enforcer is not None:
            self._enforcer.join(timeout=10)
            self._enforcer = None
        if self.webhook_worker is not None and self._webhook_thread is not None:
            self.webhook_worker.wake()
            self._webhook_thread.join(timeout=10)
            self.webhook_worker.close()
            self.webhook_worker, self._webhook_thread = None, None
        self.driver.close()
        self.hub.unwatch(self._forget_seat_tokens)
        release_hub(self._hub_key)
        self.store.close()

    # -- loading --------------------------------------------------------------------------

    def _info(self, game_id: str) -> GameInfo:
        info = self._infos.get(game_id)
        if info is not None:
            return info
        record = self.store.get_game(game_id)
        secret = self.store.get_secret(game_id) if record else None
        if record is None or secret is None:
            raise GameNotFound(f"no game {game_id}")
        info = GameInfo(record, secret)
        with self._infos_lock:
            if len(self._infos) > 4 * self.config.state_cache_size:
                self._infos.clear()
            self._infos[game_id] = info
        return info

    def _seat_tokens(self, info: GameInfo, max_age: float = 0.0) -> SeatTokens:
        """The game's seat tokens now, from its ``seat_tokens`` rows as this process read them at most
        ``max_age`` seconds ago (0: read them now, one query), so that a revocation or reissue in any process
        counts everywhere within that age: reads pass ``seat_token_recheck``; an action passes any age, as its
        append checks the token's generation again under its lock. Generation 0 is the token of the creation
        (its hash in the cached, immutable :class:`GameSecret`); a token expires ``seat_token_ttl`` after it
        was issued, and never later than its game's end plus ``seat_token_grace``."""
        game_id = info.record.game_id
        cached = self._token_books.get(game_id) if max_age > 0 else None
        if cached is None or (time.monotonic() - cached[2] > max_age and not self._seat_tokens_pushed()):
            changes, read_at = self._token_changes, time.monotonic()
            book = self.store.seat_token_book(game_id)
            if book is None:
                raise GameNotFound(f"no game {game_id}")
            cached = (*self._credentials(info, book), read_at)
            with self._infos_lock:
                if len(self._token_books) > 4 * self.config.state_cache_size:
                    self._token_books.clear()
                if changes == self._token_changes:  # else a change was announced during the read: keep nothing
                    self._token_books[game_id] = cached
        return SeatTokens(cached[0], cached[1], self.now())

    def _seat_tokens_pushed(self) -> bool:
        """Whether every change of seat tokens reaches :meth:`_forget_seat_tokens` now: on SQLite (one process,
        announced in-process), or while the PostgreSQL listener is connected. Otherwise reads fall back to
        ``seat_token_recheck``."""
        if not self._listening:
            return False
        listener = self.hub.listener
        return listener is None or listener.connected.is_set()

    def _forget_seat_tokens(self, game_id: str | None, notice: Any) -> None:
        """The hub's watcher: a game's seat tokens were reissued or revoked (in any process), or the game ended
        (its end bounds every token's expiry), or notices may have been missed (``game_id`` None): the rows this
        process read are no longer to be trusted."""
        if game_id is None or isinstance(notice, SeatTokensChanged) or (
                isinstance(notice, Notice) and notice.status == "over"):
            with self._infos_lock:
                self._token_changes += 1
                if game_id is None:
                    self._token_books.clear()
                else:
                    self._token_books.pop(game_id, None)

    def _credentials(self, info: GameInfo, book: SeatTokenBook
                     ) -> tuple[tuple[SeatCredential, ...], tuple[SeatCredential, ...]]:
        """Each seat's current token and the superseded ones, from the rows as read (kept with them: a read within
        the recheck window then costs no work)."""
        ttl = timedelta(seconds=self.config.seat_token_ttl)
        cap = book.updated_at + timedelta(seconds=self.config.seat_token_grace) if book.status == "over" else None

        def bounded(expires_at: datetime | None) -> datetime | None:
            return expires_at if cap is None or expires_at is None else min(expires_at, cap)

        created = datetime.fromisoformat(info.record.created_at)
        current = {seat: SeatCredential(seat, 0, digest, bounded(created + ttl))
                   for seat, digest in enumerate(info.secret.token_hashes) if digest is not None}
        superseded: list[SeatCredential] = []
        for row in book.rows:  # ascending generations
            if row.seat in current:
                superseded.append(current[row.seat])
            current[row.seat] = SeatCredential(row.seat, row.generation, row.token_hash, bounded(row.expires_at))
        return tuple(current.values()), tuple(superseded)

    def _record(self, game_id: str) -> GameRecord:
        record = self.store.get_game(game_id)
        if record is None:
            raise GameNotFound(f"no game {game_id}")
        return record

    def current(self, game_id: str) -> Folded:
        """The latest state: the cached fold plus any events other processes appended since."""
        info = self._info(game_id)
        cached = self._states.get(game_id)
        if cached is not None:
            base_version, base = cached.version, (cached.state, cached.life)
        else:
            base_version, base = self._snapshot_base(game_id, None)
        tail = self.store.read(game_id, after=base_version)
        if cached is not None and not tail:
            return cached
        game = self._fold(tail, info.secret.seed, base)
        if game is None:
            raise NotFound(f"game {game_id} has no events")
        folded = Folded.of(tail[-1].version if tail else base_version, *game)
        self._states.put(game_id, folded)
        return folded

    @staticmethod
    def _fold(
        tail: Sequence[StoredEvent], seed: int, base: tuple[tr.State, lc.Lifecycle] | None
    ) -> tuple[tr.State, lc.Lifecycle] | None:
        with metrics.FOLD_SECONDS.time():
            game = lc.fold_game(tail, seed, base)
        metrics.FOLD_EVENTS.observe(len(tail))
        return game

    def _snapshot_base(
        self, game_id: str, at_most: int | None
    ) -> tuple[int, tuple[tr.State, lc.Lifecycle] | None]:
        """The latest usable snapshot: one that also holds the lifecycle (older ones are folded past)."""
        snapshot = self.store.latest_snapshot(game_id, at_most=at_most)
        if snapshot is None or snapshot.lifecycle is None:
            return 0, None
        return snapshot.version, (tr.from_position(snapshot.position), lc.Lifecycle.from_json(snapshot.lifecycle))

    def state_at(self, game_id: str, version: int | None = None) -> tuple[int, tr.State]:
        """The state after ``version`` (default: the latest): cache or snapshot, plus a tail fold."""
        folded = self.folded_at(game_id, version)
        return folded.version, folded.state

    def folded_at(self, game_id: str, version: int | None = None) -> Folded:
        """State and lifecycle after ``version`` (default: the latest)."""
        if version is None:
            return self.current(game_id)
        info = self._info(game_id)
        cached = self._states.get(game_id)
        base: tuple[tr.State, lc.Lifecycle] | None
        if cached is not None and cached.version <= version:
            base_version, base = cached.version, (cached.state, cached.life)
        else:
            base_version, base = self._snapshot_base(game_id, version)
        if base is not None and version == base_version:
            return Folded.of(base_version, *base)
        tail = self.store.read(game_id, after=base_version, up_to=version)
        game = self._fold(tail, info.secret.seed, base)
        last = tail[-1].version if tail else base_version
        if game is None or last != version:
            raise NotFound(f"game {game_id} has no version {version}")
        return Folded.of(last, *game)

    # -- use cases: create and read -------------------------------------------------------

    def create_game(
        self, creds: Credentials, *, edition: str, master: bool, options: dict[str, Any],
        seats: Sequence[dict[str, Any]], clock: dict[str, Any] | None = None, timeout: dict[str, Any] | None = None,
        undo: bool | None = None, tenant: str | None = None, visibility: str = DEFAULT_VISIBILITY,
        labels: Sequence[str] = (),
    ) -> dict[str, Any]:
        """A new game with a fresh id and random seat tokens: the 201 body. ``clock``, ``timeout`` and ``undo``
        are the online-play settings (:class:`torres_audit.lifecycle.Settings`). The game belongs to the key's
        tenant (an internal key names it in ``tenant``), ``visibility`` says who may watch it, and ``labels`` are
        the portal's to file it under. (With the portal's own id for it, :meth:`create_game_once`.)"""
        owner = self.access.creation_tenant(self.access.caller(creds), tenant)
        public_seats = self._public_seats(seats)
        online = self._online(clock, timeout, undo)
        tokens = [secrets.token_urlsafe(24) if seat["kind"] == "human" else None for seat in public_seats]
        return self._create(str(uuid.uuid4()), edition, master, options, public_seats, tokens, online,
                            owner=owner, visibility=visibility, labels=list(labels))

    @staticmethod
    def _online(clock: dict[str, Any] | None, timeout: dict[str, Any] | None, undo: bool | None) -> lc.Settings:
        try:
            return lc.Settings.from_request(clock, timeout, undo)
        except ValueError as exc:
            raise ValidationFailed(str(exc), errors={"clock": [str(exc)]}) from exc

    def create_game_once(
        self, creds: Credentials, idempotency_key: str | None, *, edition: str, master: bool,
        options: dict[str, Any], seats: Sequence[dict[str, Any]], clock: dict[str, Any] | None = None,
        timeout: dict[str, Any] | None = None, undo: bool | None = None, tenant: str | None = None,
        visibility: str = DEFAULT_VISIBILITY, labels: Sequence[str] = (), external_id: str | None = None,
    ) -> Submitted:
        """Create a game at most once per ``Idempotency-Key``: a retry (say, after a timeout that hid the 201)
        gets the original body again, tokens included, instead of a second, orphaned game.

        Only token hashes are stored, so a replay cannot read the tokens back: the game id is derived from the
        key and each token from the admin key, the game id and the seat (HMAC), so the same request computes
        the same body. Two concurrent requests with one key insert one game row; the other replays it.

        Keys are per principal: the game id is derived from the tenant, the key and who asked (the ``default``
        tenant's from the key alone; an internal service's within a namespace of its own), so a replay answers
        only the principal that made the request. Two portals using the same key get two games, and so do a
        portal and the matcher creating for it: the matcher's key, which never hands out a seat of another's
        game, cannot replay the portal's creation to read its seat tokens, and what it gets for a key the portal
        used is exactly what it gets for an unused one. All of a tenant's keys are one principal here, so a retry
        across a key rotation still replays.

        A portal's ``external_id`` for the game works as the key does, within its own namespace (no
        Idempotency-Key can spell it: keys have no line breaks), so an id is unique per tenant by construction:
        creating with it again answers that game. With both, the external id decides: it already makes every retry
        of the creation safe, and the key, which would name another game, adds nothing. It is the portal's own
        id, so an internal key may not send one (400): answering it would say whether the portal used the id."""
        assert idempotency_key is not None or external_id is not None
        reused = IdempotencyKeyReused if external_id is None else ExternalIdReused
        basis = idempotency_key if external_id is None else f"external id\n{external_id}"
        caller = self.access.caller(creds)
        owner = self.access.creation_tenant(caller, tenant)
        principal = caller.principal
        assert principal is not None  # creation_tenant required one
        if principal.internal and external_id is not None:
            raise ValidationFailed("external_id is the portal's own id for a game; an internal key sends none",
                                   errors={"external_id": ["not with an internal service's key"]})
        public_seats = self._public_seats(seats)
        online = self._online(clock, timeout, undo)
        namespace = uuid.uuid5(_CREATION_KEYS, f"internal\n{principal.name}") if principal.internal \
            else _CREATION_KEYS
        game_id = str(uuid.uuid5(namespace, basis if owner == DEFAULT_TENANT else f"{owner}\n{basis}"))
        tokens = [self._derived_token(game_id, seat["seat"]) if seat["kind"] == "human" else None
                  for seat in public_seats]
        try:
            return Submitted(self._create(game_id, edition, master, options, public_seats, tokens, online,
                                          owner=owner, visibility=visibility, labels=list(labels),
                                          external_id=external_id))
        except GameExists:
            pass
        record = self._record(game_id)
        secret = self.store.get_secret(game_id)
        created = self.store.read(game_id, up_to=1)[0]
        what = "Idempotency-Key" if external_id is None else "external_id"
        if (record.tenant, record.visibility, record.edition, record.master, record.options, record.seats,
                record.labels, lc.Settings.from_json(created.payload.get("online"))) != (
                owner, visibility, edition, master, options, public_seats, list(labels), online):
            raise reused(f"this {what} created a game with other settings, seats or labels")
        if secret is None or secret.token_hashes != [token_hash(t) if t else None for t in tokens]:
            raise reused(f"this {what} created a game whose seat tokens can no longer be derived (the admin key "
                         "changed)")
        book = self.store.seat_token_book(game_id)
        if book is not None and book.rows:
            # The original tokens were superseded and the current ones are stored only as hashes: answering the
            # original body would hand out dead tokens as if they were the seats' (docs/game-service.md).
            raise SeatTokensReissued(f"this {what}'s game had seat tokens reissued or revoked since; its tenant "
                                     "reads the game and reissues tokens (POST .../seats/<seat>/token)")
        return Submitted(self._created_body(game_id, created.version, created.payload["seed_commitment"],
                                            public_seats, tokens, record), replayed=True)

    def _derived_token(self, game_id: str, seat: int) -> str:
        digest = hmac.new(self.config.admin_key.encode(), f"seat-token:{game_id}:{seat}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")

    @staticmethod
    def _public_seats(seats: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        if not 2 <= len(seats) <= 4:
            raise ValidationFailed("a game has 2 to 4 seats", errors={"seats": ["2 to 4 seats"]})
        public_seats: list[dict[str, Any]] = []
        for number, spec in enumerate(seats):
            seat: dict[str, Any] = {"seat": number, "kind": spec["kind"]}
            if spec["kind"] == "human":
                seat["player_id"] = spec.get("player_id")
            else:
                seat["level"] = spec.get("level", "easy")
            if spec.get("display_name"):
                seat["display_name"] = spec["display_name"]
            public_seats.append(seat)
        return public_seats

    def _create(
        self, game_id: str, edition: str, master: bool, options: dict[str, Any], public_seats: list[dict[str, Any]],
        tokens: list[str | None], online: lc.Settings, *, owner: str, visibility: str, labels: list[str],
        external_id: str | None = None,
    ) -> dict[str, Any]:
        seed = secrets.randbits(128)
        try:
            state = tr.new_game(players=len(public_seats), seed=seed, edition=edition, master=master, **options)
        except (ValueError, TypeError) as exc:
            raise ValidationFailed(str(exc), errors={"options": [str(exc)]}) from exc
        created = ev.game_created(edition=edition, master=master, options=options, seats=public_seats, seed=seed,
                                  online=online)
        now = self.now()
        folded = Folded.of(1, *lc.step(None, None, created.type, created.payload, 1, format_time(now),
                                       lambda _: state))
        tenant = self.access.registries.current.tenant(owner)
        record = GameRecord(
            game_id=game_id, created_at="", edition=edition, master=master, options=options,
            seats=public_seats, status="active", summary=folded.summary, tenant=owner, visibility=visibility,
            external_id=external_id, labels=labels, webhooks=tenant is not None and tenant.webhook is not None,
        )
        secret = GameSecret(seed, [token_hash(t) if t else None for t in tokens])
        ai_turn = self._ai_turn_due(game_id, folded)
        hooks = self._webhooks(record, [created], 1, now, None, folded)
        result = self.store.create_game(record, secret, [created], f"create:{game_id}", ai_turn=ai_turn, now=now,
                                        webhooks=hooks)
        self._states.put(game_id, folded)
        self._after_append(game_id, folded, ai_turn, hooks)
        return self._created_body(game_id, result.version, created.payload["seed_commitment"], public_seats, tokens,
                                  record)

    @staticmethod
    def _created_body(
        game_id: str, version: int, seed_commitment: str, public_seats: list[dict[str, Any]],
        tokens: list[str | None], record: GameRecord,
    ) -> dict[str, Any]:
        return {
            "game_id": game_id,
            "version": version,
            "visibility": record.visibility,
            "external_id": record.external_id,
            "labels": record.labels,
            "seed_commitment": seed_commitment,
            "seats": [
                {**seat, **({"token": token} if token else {})}
                for seat, token in zip(public_seats, tokens, strict=True)
            ],
        }

    @staticmethod
    def _summary(record: GameRecord) -> dict[str, Any]:
        return {
            "game_id": record.game_id,
            "status": record.status,
            "version": record.version,
            "visibility": record.visibility,
            "edition": record.edition,
            "master": record.master,
            "options": record.options,
            "seats": record.seats,
            **{k: record.summary.get(k) for k in ("stage", "phase", "round", "to_move", "scores", "winner",
                                                   "deadline")},
            "winners": record.summary.get("winners", [] if record.summary.get("winner") is None
                                          else [record.summary["winner"]]),
            "created_at": record.created_at,
            "external_id": record.external_id,
            "labels": record.labels,
        }

    def list_games(
        self, creds: Credentials, *, limit: int, cursor: str | None = None, status: str | None = None,
        player_id: str | None = None, visibility: str | None = None, created_after: datetime | None = None,
        created_before: datetime | None = None, external_id: str | None = None, label: str | None = None,
    ) -> dict[str, Any]:
        """The caller's tenant's games (the admin key: every tenant's), newest first, every visibility. The
        cursor is the last listed game's ``(created_at, game_id)``: a page never repeats or skips a game while
        new ones are created, which an offset did."""
        tenant = self.access.list_scope(self.access.caller(creds))
        where = GameFilter(tenant=tenant, status=status, player_id=player_id, visibility=visibility,
                           external_id=external_id, label=label, created_after=created_after,
                           created_before=created_before)
        records = self.store.list_games(where, before=_read_cursor(cursor), limit=limit)
        last = records[-1] if len(records) == limit else None
        return {"games": [self._summary(r) for r in records], "limit": limit,
                "next_cursor": _write_cursor(last.created_at, last.game_id) if last else None}

    def game_summary(self, game_id: str, creds: Credentials = ANONYMOUS) -> dict[str, Any]:
        """The summary, to whoever may read the game."""
        caller = self.access.caller(creds)
        self.access.check_read(self._info(game_id), caller)
        return self._summary(self._record(game_id))

    def latest_summary(self, game_id: str) -> dict[str, Any]:
        """The summary with no check: for a stream whose opening already passed :meth:`game_summary`."""
        return self._summary(self._record(game_id))

    def view(self, game_id: str, creds: Credentials, *, seat: int | None = None) -> dict[str, Any]:
        caller = self.access.caller(creds)
        info = self._info(game_id)
        reader_seat = self.access.optional_seat(info, caller, seat)
        folded = self.current(game_id)
        # The castles and the coming scoring read public fields only (the engine's `explain`), so every reader
        # gets the same ones; the preview is the engine's own scoring, which the web client shows without arithmetic.
        return {"version": folded.version, "seat": reader_seat, "view": tr.view(folded.state, reader_seat),
                "castles": tr.castles_of(folded.state), "preview": tr.phase_preview(folded.state),
                "lifecycle": folded.life.public(self.now())}

    def legal_actions(self, game_id: str, creds: Credentials, *, seat: int | None = None) -> dict[str, Any]:
        caller = self.access.caller(creds)
        info = self._info(game_id)
        reader_seat = self.access.optional_seat(info, caller, seat)
        if reader_seat is None:
            raise Unauthenticated("send Authorization: Bearer <seat token>")
        folded = self.current(game_id)
        mine = folded.to_move == reader_seat and not (creds.token is not None and folded.life.ai_plays(reader_seat))
        return {"version": folded.version, "seat": reader_seat,
                "actions": tr.legal_actions(folded.state) if mine else []}

    def events(self, game_id: str, creds: Credentials, *, after: int, limit: int) -> dict[str, Any]:
        caller = self.access.caller(creds)
        info = self._info(game_id)
        record = self._record(game_id)
        reader = self.access.reader(info, caller, over=record.status == "over")
        return self._event_page(record, reader, after=after, limit=limit)

    def events_for(self, game_id: str, reader: Reader, *, after: int, limit: int) -> dict[str, Any]:
        """``GET /events`` for a reader already admitted (a stream opened with headers or a stream ticket):
        the same page, redacted the same way, full once the game is over."""
        record = self._record(game_id)
        if record.status == "over":
            reader = Reader(full=True, seat=reader.seat)
        return self._event_page(record, reader, after=after, limit=limit)

    def _event_page(self, record: GameRecord, reader: Reader, *, after: int, limit: int) -> dict[str, Any]:
        game_id = record.game_id
        page = self.store.read(game_id, after=after, limit=limit)
        return {
            "game_id": game_id,
            "version": record.version,
            "events": redact_events(page, reader),
            "next_after": page[-1].version if page else after,
            "redacted": not reader.full,
        }

    def position_at(self, game_id: str, creds: Credentials, *, version: int | None) -> dict[str, Any]:
        caller = self.access.caller(creds)
        info = self._info(game_id)
        record = self._record(game_id)
        token_seat = self.access.check_read(info, caller)
        admin = self.access.reads_full(info, caller)
        # No credentials before the end: the spectator's view at that version (public facts only), which is
        # what a spectator watched live, so that anyone who may watch the game can replay it while it runs.
        seat = None if admin else token_seat
        at, state = self.state_at(game_id, version)
        # castles and the scoring are public facts (the board, the figures, the scores), so every reader gets them
        public = {"castles": tr.castles_of(state), "scoring": self._scoring_at(game_id, at, state)}
        if admin or record.status == "over":
            return {"version": at, "position": state.to_position(), **public}
        return {"version": at, "seat": seat, "view": tr.view(state, seat), **public}

    def _scoring_at(self, game_id: str, version: int, state: tr.State) -> dict[str, Any] | None:
        """The breakdown of the phase scoring event ``version`` made, or None. Only an action can score, and the
        stage after one is ``move_king`` or ``over`` (it stays ``over``, so the state before tells); only then is
        the state before folded."""
        if version < 2 or state.stage not in ("move_king", "over"):
            return None
        return tr.scored_between(self.state_at(game_id, version - 1)[1], state)

    def notifications(self, creds: Credentials, *, after: int, limit: int) -> dict[str, Any]:
        """The log of the caller's games in commit order: a tenant's key with ``games`` reads its own games'
        events (full with ``admin`` too, else redacted like a spectator); an internal key with ``notifications``
        (the ratings consumer) every tenant's, redacted; the admin key every tenant's, full."""
        caller = self.access.caller(creds)
        tenant: str | None = None
        full = caller.operator
        if not caller.operator:
            principal = caller.principal
            if principal is None:
                raise Unauthenticated("send an API key in X-API-Key")
            if principal.internal:
                principal.require("notifications")
            else:
                principal.require("games")
                tenant, full = principal.name, principal.may("admin")
        page = self.store.notifications(after=after, limit=limit, tenant=tenant)
        reader = FULL if full else Reader.spectator()
        items = [
            {k: doc[k] for k in ("position", "game_id", "version", "type", "payload", "created_at", "text")}
            for doc in redact_events(page, reader)
        ]
        return {"notifications": items, "next_after": page[-1].position if page else after}

    def webhook_deliveries(self, creds: Credentials, *, after: int, limit: int) -> dict[str, Any]:
        """The outbox of the caller's tenant after the cursor ``after`` (issue 29): a tenant's key with ``games``
        reads its own webhooks, the admin key every tenant's; an internal service none."""
        caller = self.access.caller(creds)
        tenant: str | None = None
        if not caller.operator:
            principal = caller.principal
            if principal is None:
                raise Unauthenticated("send an API key in X-API-Key")
            if principal.internal:
                raise MissingScope("webhooks belong to tenants: an internal service's key reads none", scope="games")
            principal.require("games")
            tenant = principal.name
        page = self.store.webhook_deliveries(after=after, limit=limit, tenant=tenant)
        return {"deliveries": [d.to_json() for d in page], "next_after": page[-1].seq if page else after}

    def wait(self, game_id: str, creds: Credentials = ANONYMOUS, *, version: int, timeout: float) -> dict[str, Any]:
        """Long-poll: one read of the games row, then sleep on the game's notices (no further query unless
        the notification listener reconnected and asks for a re-check)."""
        caller = self.access.caller(creds)
        self.access.check_read(self._info(game_id), caller)
        sub = self.hub.subscribe(game_id)  # before the read: no notice can slip in between
        try:
            record = self._record(game_id)
            current = record.version
            if current <= version and record.status != "over":
                current = wait_for_version(sub, lambda: self.store.current_version(game_id), version, timeout,
                                           current=current) or current
        finally:
            self.hub.unsubscribe(sub)
        return {"game_id": game_id, "version": current, "changed": current > version}

    def spectator_token(self, game_id: str, creds: Credentials, *, ttl: int = SPECTATOR_TTL_DEFAULT) -> dict[str, Any]:
        """A token that reads this game as a spectator until it expires (the tenant's key with ``games``, or the
        admin key): how a portal lets someone watch a private game without a seat."""
        caller = self.access.caller(creds)
        info = self._info(game_id)
        if not caller.operator:
            self.access.seat_admin(info, caller)
        token, expires = self.access.issue_spectator_token(info, ttl)
        return {"game_id": game_id, "token": token,
                "expires_at": format_time(datetime.fromtimestamp(expires, UTC))}

    # -- seat tokens and stream tickets (issue 26) ----------------------------------------

    def _token_seat(self, game_id: str, creds: Credentials, seat: int) -> GameInfo:
        """Reissuing or revoking a seat's token: the game's tenant (key with ``games``) or the operator; a human
        seat of the game. The key is checked before the game is looked up (401 whether it exists or not)."""
        caller = self.access.caller(creds)
        info = self._info(game_id)
        if not caller.operator:
            self.access.seat_admin(info, caller)
        kind = info.seat_kind(seat)
        if kind is None:
            raise NotFound(f"no seat {seat}")
        if kind != "human":
            raise SeatHasNoToken(f"seat {seat} is an AI seat: it has no token")
        return info

    def reissue_seat_token(self, game_id: str, creds: Credentials, *, seat: int) -> dict[str, Any]:
        """A new random token for the seat (a player who lost theirs), returned this once; every earlier one
        of the seat is superseded at once, in every process (401 ``seat_token_revoked``). Never derived: an
        Idempotency-Key replay could not hand it out again, and refuses instead (409 ``seat_tokens_reissued``)."""
        info = self._token_seat(game_id, creds, seat)
        token = secrets.token_urlsafe(24)
        now = self.now()
        expires = now + timedelta(seconds=self.config.seat_token_ttl)
        generation = self.store.add_seat_token(game_id, seat, token_hash(token), issued_at=now, expires_at=expires)
        self._announce_seat_tokens(game_id)
        current = next(c for c in self._seat_tokens(info, 0).current if c.seat == seat)
        log.info("seat token reissued", extra={"game_id": game_id, "seat": seat, "generation": generation})
        return {"game_id": game_id, "seat": seat, "generation": generation, "token": token,
                "expires_at": format_time(current.expires_at or expires)}

    def revoke_seat_token(self, game_id: str, creds: Credentials, *, seat: int) -> dict[str, Any]:
        """The seat has no valid token until one is reissued (every earlier one: 401 ``seat_token_revoked``);
        the seat stays in the game, its clock runs as before."""
        self._token_seat(game_id, creds, seat)
        generation = self.store.add_seat_token(game_id, seat, None, issued_at=self.now(), expires_at=None)
        self._announce_seat_tokens(game_id)
        log.info("seat token revoked", extra={"game_id": game_id, "seat": seat, "generation": generation})
        return {"game_id": game_id, "seat": seat, "generation": generation, "revoked": True}

    def _announce_seat_tokens(self, game_id: str) -> None:
        """Every process forgets the game's seat-token rows it read: this one at once; on PostgreSQL the others
        when the transaction's notice reaches their listeners (and this one's again)."""
        if self.hub.listener is None:  # SQLite: announced in-process, to this service's watcher among others
            self.hub.announce(game_id, SeatTokensChanged(game_id))
        else:
            self._forget_seat_tokens(game_id, SeatTokensChanged(game_id))

    def stream_ticket(self, game_id: str, creds: Credentials) -> dict[str, Any]:
        """A single-use ticket for ``/stream`` or ``/ws`` (``?stream_ticket=``) standing for the caller as a
        reader of this game: what a browser, whose EventSource and WebSocket cannot send headers, puts in the
        URL instead of its seat token. Random, stored as its SHA-256, valid ``stream_ticket_ttl`` seconds."""
        caller = self.access.caller(creds)
        info = self._info(game_id)
        if caller.token is None and caller.principal is None and not caller.operator:
            raise self.access._hidden(info, Unauthenticated(
                "a stream ticket needs a credential: a seat or spectator token, an API key or the admin key"))
        reader = self.access.reader(info, caller, over=False)
        ticket = secrets.token_urlsafe(24)
        ttl = self.config.stream_ticket_ttl
        self.store.add_stream_ticket(token_hash(ticket), StreamTicket(
            game_id, reader.seat, reader.full, self.now() + timedelta(seconds=ttl)))
        # The matchmaker's stream tickets answer the same shape (docs/matchmaking.md): one client code path.
        return {"game_id": game_id, "stream_ticket": ticket, "expires_in": int(ttl),
                "stream_url": f"/v1/games/{game_id}/stream?stream_ticket={ticket}"}

    def stream_opening(
        self, game_id: str, creds: Credentials, ticket: str | None = None
    ) -> tuple[dict[str, Any], Reader]:
        """What a stream (SSE or WebSocket) opens with: the game's summary and its reader, from the headers'
        credentials (the read gate of every read) or from a stream ticket, which is consumed here. A key sent
        beside a ticket must hold as on any request (an unknown or revoked key 401, a wrong admin key 403,
        another tenant's key 404): a ticket is no reason to ignore a credential that does not verify. Checked
        before the ticket is taken, so a refused request leaves it usable."""
        if ticket is not None:
            caller = self.access.caller(creds)
            if caller.principal is not None:
                self.access.owned(self._info(game_id), caller.principal)
            reader = self.redeem_stream_ticket(game_id, ticket)
            return self._summary(self._record(game_id)), reader
        caller = self.access.caller(creds)
        reader = self.access.reader(self._info(game_id), caller, over=False)
        return self._summary(self._record(game_id)), reader

    def redeem_stream_ticket(self, game_id: str, ticket: str) -> Reader:
        """The reader a ticket stands for, consumed (deleted) whatever the outcome: 401 ``invalid_stream_ticket``
        when it is unknown, used, expired or another game's."""
        taken = self.store.take_stream_ticket(token_hash(ticket))
        if taken is None or not hmac.compare_digest(taken.game_id.encode(), game_id.encode()) \
                or self.now() >= taken.expires_at:
            raise StreamTicketInvalid("this stream ticket is unknown, used, expired or for another game")
        return Reader(full=taken.full, seat=taken.seat)

    # -- verify ---------------------------------------------------------------------------

    def record(self, game_id: str, creds: Credentials, *, seat: int | None = None) -> dict[str, Any]:
        """The game record for the caller (docs/audit.md): complete once the game is over, else what this
        reader may see of the events (the operator or the tenant's ``admin`` key: all payloads; seat token: its
        own secrets; a spectator: what is public), behind the same read gate as every other read."""
        caller = self.access.caller(creds)
        info = self._info(game_id)
        reader_seat = self.access.optional_seat(info, caller, seat)
        over = self._record(game_id).status == "over"
        reader = Reader(full=over or self.access.reads_full(info, caller), seat=reader_seat)
        return build_record(self.store.read(game_id), info.secret, reader, self.signer,
                            inclusion=self.translog.record_inclusion(game_id) if over else None)

    def verify(self, game_id: str, creds: Credentials = ANONYMOUS) -> dict[str, Any]:
        """Re-hash the chain and re-fold the log; report the first inconsistency found."""
        caller = self.access.caller(creds)
        info = self._info(game_id)
        self.access.check_read(info, caller)
        record = self._record(game_id)
        return verify_log(
            game_id, self.store.read(game_id), seed=info.secret.seed, recorded_version=record.version,
            snapshot=self.store.latest_snapshot(game_id),
        )

    # -- use cases: write -----------------------------------------------------------------

    def submit_action(
        self, game_id: str, creds: Credentials, *, seat: int, action: dict[str, Any],
        expected_version: int, command_id: str,
    ) -> Submitted:
        caller = self.access.caller(creds)
        info = self._info(game_id)
        presented = self._actor(info, caller, seat)
        try:
            return self._submit(info, seat, action, expected_version, command_id, by_ai=creds.token is None,
                                seat_token=presented)
        except ServiceError as exc:
            # The token was judged on the rows this process read last: before any other refusal reaches the
            # client, judge it on fresh ones, so that a token error comes first, as it would have.
            if presented is not None and not isinstance(exc, Unauthenticated):
                self.access.token_credential(info, caller, max_age=0.0)
            raise

    def _actor(self, info: GameInfo, caller: Caller, seat: int) -> SeatCredential | None:
        """``Access.actor`` on the seat-token rows as last read, and a key with ``ai`` for a human seat the AI
        may take over after a timeout (whether the AI plays it *now* is the turn check's business:
        :meth:`_submit`)."""
        try:
            return self.access.actor(info, caller, seat, max_age=math.inf)
        except Forbidden:
            # Forbidden (not 404 nor insufficient_scope) with a key: the key may act for AI seats of this game,
            # and this seat is a human one.
            if caller.token is not None or caller.principal is None or info.seat_kind(seat) is None:
                raise
            if self.current(info.record.game_id).life.settings.timeout_policy != "ai":
                raise
            return None

    def ai_seat_level(self, game_id: str, seat: int) -> str | None:
        """The level the AI plays ``seat`` at now: an AI seat's own, or the timeout policy's for a human seat
        taken over; None when a human plays it."""
        folded = self.current(game_id)
        if not 0 <= seat < len(folded.life.kinds) or not folded.life.ai_plays(seat):
            return None
        if folded.life.kinds[seat] == "ai":
            return self._info(game_id).record.seats[seat].get("level", "easy")
        return folded.life.settings.ai_level

    @staticmethod
    def _fingerprint(seat: int, action: dict[str, Any], expected_version: int) -> str:
        body = {"seat": seat, "action": action, "expected_version": expected_version}
        return hashlib.sha256(canonical_json(body).encode()).hexdigest()

    def _replay(self, original: AppendResult, fingerprint: str, seat: int) -> Submitted:
        if original.fingerprint != fingerprint:
            raise CommandIdReused("this command id was already used with a different request")
        then = self.folded_at(original.game_id, original.version)  # exactly the original body
        metrics.REPLAYS.inc()
        return Submitted(self._submitted_body(original, seat, then), replayed=True)

    def _submitted_body(self, result: AppendResult, seat: int, folded: Folded) -> dict[str, Any]:
        """The 201 body; ``legal_actions`` (the seat's, at the new version) saves a GET while its turn goes on."""
        return {
            "version": result.version,
            "events": redact_events(list(result.events), Reader(seat=seat)),
            "legal_actions": tr.legal_actions(folded.state) if folded.to_move == seat else [],
        }

    def _refuse(
        self, game_id: str, command_id: str, fingerprint: str, seat: int, error: ServiceError, *, at: int
    ) -> Submitted:
        """Before refusing, honour a retry (a known command id returns its original result), and
        prefer 409 when the game moved on: the refusal may rest on a cached, stale state."""
        original = self.store.find_command(game_id, command_id)
        if original is not None:
            return self._replay(original, fingerprint, seat)
        if not isinstance(error, (VersionConflict, TimeUp)):  # time_up: the timeout itself moved the game on
            current = self.store.current_version(game_id)
            if current is not None and current != at:
                error = VersionConflict(f"the game is at version {current}", current_version=current)
        if isinstance(error, VersionConflict):
            metrics.VERSION_CONFLICTS.inc()
        raise error

    def _submit(
        self, info: GameInfo, seat: int, action: dict[str, Any], expected_version: int, command_id: str,
        *, by_ai: bool = False, seat_token: SeatCredential | None = None,
    ) -> Submitted:
        game_id = info.record.game_id
        fingerprint = self._fingerprint(seat, action, expected_version)
        cached = self._states.get(game_id)
        # Fast path: no read when the cache is at the client's version. If the game moved on
        # meanwhile (another process appended), the client is stale too, and the store's version
        # check answers 409 as it should.
        folded = cached if cached is not None and cached.version == expected_version else self.current(game_id)
        version = folded.version
        now = self.now()
        refusal = self._turn_refusal(game_id, folded, seat, expected_version, now, by_ai=by_ai)
        if refusal is not None:
            return self._refuse(game_id, command_id, fingerprint, seat, refusal, at=version)
        try:
            plan = self._settle(info, folded, [ev.action_applied(seat, action)], now)
        except tr.IllegalAction as exc:
            return self._refuse(game_id, command_id, fingerprint, seat, IllegalActionError(str(exc)), at=version)
        except (ValueError, KeyError, TypeError) as exc:  # a malformed wire form the rules did not classify
            return self._refuse(game_id, command_id, fingerprint, seat,
                                IllegalActionError(f"malformed action: {exc!r}"), at=version)
        result, after = self._append(info, folded, plan, command_id, now, fingerprint=fingerprint,
                                     seat_token=seat_token)
        if after is None:
            return self._replay(result, fingerprint, seat)
        log.info("action applied", extra={"game_id": game_id, "seat": seat, "version": result.version,
                                          "action_type": action.get("type")})
        return Submitted(self._submitted_body(result, seat, after))

    def _turn_refusal(
        self, game_id: str, folded: Folded, seat: int, expected_version: int, now: datetime, *, by_ai: bool
    ) -> ServiceError | None:
        """Why ``seat`` may not act (move or undo) at ``expected_version`` now, or None. A seat whose time is
        up gets 409 ``time_up`` after the timeout was applied here and then (the enforcer may not have run yet)."""
        version = folded.version
        if expected_version != version:
            return VersionConflict(f"expected version {expected_version}, the game is at {version}",
                                   current_version=version)
        if folded.over:
            return GameOver("the game is over")
        if seat in folded.life.forfeited:
            return SeatForfeited(f"seat {seat} has left the game")
        if folded.to_move != seat:
            return NotYourTurn(f"seat {folded.to_move} is to move, not seat {seat}")
        if folded.life.ai_plays(seat) and not by_ai:
            return SeatPlayedByAi(f"the AI plays seat {seat} after its timeout")
        deadline = folded.life.deadline()
        if deadline is not None and now > deadline:
            self.enforce_deadline(game_id, now=now)
            return TimeUp(f"seat {seat}'s time ran out at {format_time(deadline)}")
        return None

    def _settle(
        self, info: GameInfo, folded: Folded, events: Sequence[NewEvent], now: datetime, *, abandoned: bool = False,
    ) -> tuple[list[NewEvent], Folded]:
        """Fold ``events`` (raising the rules' errors) and add what follows from them in the same append: a
        forfeited seat to move passes (:func:`lifecycle.pass_action`), and the game ends, with its result,
        after the third scoring, when fewer than two seats are left, or when the portal abandoned it: what
        :func:`torres_audit.lifecycle.follow_up` says, the rule the offline verifier holds every log to."""
        at = format_time(now)
        state, life, version = folded.state, folded.life, folded.version
        new = list(events)

        def initial(_: dict[str, Any]) -> tr.State:
            raise ValueError("game_created cannot be appended")

        for event in new:
            version += 1
            state, life = lc.step(state, life, event.type, event.payload, version, at, initial)
        while (due := lc.follow_up(state, life, abandoned=abandoned)) is not None:
            if due == lc.END:
                event = ev.game_ended(state, info.secret.seed, life, abandoned=abandoned)
            else:
                event = ev.action_applied(state.to_move, lc.pass_action(state), auto="forfeit")
            new.append(event)
            version += 1
            state, life = lc.step(state, life, event.type, event.payload, version, at, initial)
        return new, Folded.of(version, state, life)

    def _append(
        self, info: GameInfo, folded: Folded, plan: tuple[list[NewEvent], Folded], command_id: str, now: datetime,
        *, fingerprint: str | None = None, seat_token: SeatCredential | None = None,
    ) -> tuple[AppendResult, Folded | None]:
        """One atomic append of a settled plan at ``folded.version``, stamped ``now``; then the cache, a
        snapshot when due, waiters and the AI driver. ``(original, None)`` for a command id seen before.
        ``seat_token``: the token the actor presented, refused by the append if a later one was recorded."""
        game_id = info.record.game_id
        new_events, after = plan
        ai_turn = self._ai_turn_due(game_id, after)
        hooks = self._webhooks(info.record, new_events, folded.version + 1, now, folded, after)
        try:
            result = self.store.append(game_id, folded.version, new_events, command_id, AppendOptions(
                fingerprint=fingerprint, status="over" if after.over else None, summary=after.summary,
                ai_turn=ai_turn, close_ai_turns="ai" in after.life.kinds or after.life.settings.timeout_policy == "ai",
                now=now, seat_token=None if seat_token is None else (seat_token.seat, seat_token.generation),
                webhooks=hooks,
            ))
        except VersionConflict:
            metrics.VERSION_CONFLICTS.inc()
            raise
        if result.duplicate:
            return result, None
        metrics.APPENDS.labels("ai" if command_id.startswith("ai:") else "human").inc()  # ai_turns.ai_command_id
        metrics.EVENTS.inc(len(result.events))
        self._states.put(game_id, after)
        if after.over:  # the end bounds every seat token's expiry: this process's reads judge on the new rows
            self._token_books.pop(game_id, None)
        every = self.config.snapshot_every
        if every > 0 and result.version // every > folded.version // every:
            self.store.save_snapshot(Snapshot(game_id, result.version, after.state.to_position(),
                                              lifecycle=after.life.to_json()))
        self._after_append(game_id, after, ai_turn, hooks)
        return result, after

    @staticmethod
    def _ai_turn_due(game_id: str, folded: Folded) -> AiTurn | None:
        to_move = folded.to_move
        if to_move is not None and folded.life.ai_plays(to_move):
            return AiTurn(game_id, to_move, folded.version)
        return None

    def _webhooks(self, record: GameRecord, events: Sequence[NewEvent], first_version: int, now: datetime,
                  before: Folded | None, after: Folded) -> list[WebhookRow]:
        """The outbox rows these events cause (:func:`webhooks.webhooks_for`), for a game whose tenant had an
        endpoint when it was created (the games row says so, whichever process appends; otherwise nothing is
        written, so webhooks cost nothing to a tenant that does not use them)."""
        if not record.webhooks:
            return []
        return webhooks_for(record, events, first_version, format_time(now), None if before is None else before.life,
                            after.life, after.summary)

    def _after_append(self, game_id: str, folded: Folded, ai_turn: AiTurn | None,
                      hooks: Sequence[WebhookRow] = ()) -> None:
        if self.hub.listener is None:  # SQLite: in-process wake-ups; PostgreSQL's come from the database
            notice = Notice(game_id, folded.version, "over" if folded.over else "active", folded.to_move)
            self.hub.publish(game_id, notice)
        if ai_turn is not None:
            self.driver.turn_due(ai_turn.game_id, ai_turn.seat, ai_turn.version)
        if hooks:
            for hook in hooks:
                WRITTEN.labels(hook.type).inc()
            if self.webhook_worker is not None:
                self.webhook_worker.wake()

    # -- use cases: online play (clocks, leaving, undo) -----------------------------------

    @staticmethod
    def _result_body(result: AppendResult, reader: Reader) -> dict[str, Any]:
        """The 201 of resign/abandon, from the append alone, so a replay answers exactly the original body."""
        over = any(event.type == GAME_ENDED for event in result.events)
        return {"game_id": result.game_id, "version": result.version, "status": "over" if over else "active",
                "events": redact_events(list(result.events), reader)}

    def _append_retrying(
        self, info: GameInfo, make: Callable[[Folded], list[NewEvent]], command_id: str, *, abandoned: bool = False,
    ) -> AppendResult:
        """Append ``make(current)`` at whatever version the game is at: a resignation or an abandonment is
        valid at any moment, so losing a race to a move just means trying again on the new version."""
        for _ in range(20):
            folded = self.current(info.record.game_id)
            now = self.now()
            try:
                result, _after = self._append(info, folded, self._settle(info, folded, make(folded), now,
                                                                           abandoned=abandoned), command_id, now)
                return result
            except VersionConflict:
                continue
        raise VersionConflict("the game kept moving; try again", current_version=self.current(
            info.record.game_id).version)

    def resign(self, game_id: str, creds: Credentials, *, seat: int) -> Submitted:
        """The seat leaves (seat token): it forfeits like a timeout does — its knights stay, it passes every
        turn, it ranks last — and with fewer than two seats left the game ends. A retry is answered from the
        log (command id ``resign:<game>:<seat>``)."""
        caller = self.access.caller(creds)
        info = self._info(game_id)
        self.access.actor(info, caller, seat, max_age=0.0)  # rare writes: on rows read now
        command_id = f"resign:{game_id}:{seat}"
        original = self.store.find_command(game_id, command_id)
        if original is not None:
            return Submitted(self._result_body(original, Reader(seat=seat)), replayed=True)

        def make(folded: Folded) -> list[NewEvent]:
            if folded.over:
                raise GameOver("the game is over")
            if seat in folded.life.forfeited:
                raise SeatForfeited(f"seat {seat} has already left the game")
            return [ev.resigned(seat)]

        result = self._append_retrying(info, make, command_id)
        log.info("seat resigned", extra={"game_id": game_id, "seat": seat, "version": result.version})
        return Submitted(self._result_body(result, Reader(seat=seat)), replayed=result.duplicate)

    def abandon(self, game_id: str, creds: Credentials, *, reason: str) -> Submitted:
        """The portal ends the game (service key) with a recorded reason, e.g. the matcher aborting a game whose
        players never came. The result ranks seats by score and is unrated if nobody acted yet. Abandoning the
        same game again answers the original result."""
        caller = self.access.caller(creds)
        info = self._info(game_id)
        self.access.game_admin(info, caller)
        command_id = f"abandon:{game_id}"
        original = self.store.find_command(game_id, command_id)
        if original is not None:
            return Submitted(self._result_body(original, Reader.spectator()), replayed=True)

        def make(folded: Folded) -> list[NewEvent]:
            if folded.over:
                raise GameOver("the game is over")
            return [ev.abandoned(reason)]

        result = self._append_retrying(info, make, command_id, abandoned=True)
        log.info("game abandoned", extra={"game_id": game_id, "reason": reason, "version": result.version})
        return Submitted(self._result_body(result, Reader.spectator()), replayed=result.duplicate)

    def undo(
        self, game_id: str, creds: Credentials, *, seat: int, expected_version: int, command_id: str,
    ) -> Submitted:
        """Take back the seat's last action of this turn, at the current version: the state becomes the one
        before it. Refused once something hidden was revealed since (``lifecycle.CLOSES_UNDO``)."""
        caller = self.access.caller(creds)
        info = self._info(game_id)
        self.access.actor(info, caller, seat, max_age=0.0)  # rare writes: on rows read now
        fingerprint = self._fingerprint(seat, {"type": "undo"}, expected_version)
        folded = self.current(game_id)
        now = self.now()
        refusal = self._turn_refusal(game_id, folded, seat, expected_version, now, by_ai=creds.token is None)
        if refusal is None and not folded.life.settings.undo:
            refusal = UndoDisabled("this game was created with undo switched off")
        if refusal is None and not folded.life.undo:
            refusal = UndoUnavailable("nothing of this turn can be taken back: no action yet, or a card was "
                                      "drawn or shown since")
        if refusal is not None:
            return self._refuse(game_id, command_id, fingerprint, seat, refusal, at=folded.version)
        undone = folded.life.undo[-1][0]
        plan = self._settle(info, folded, [ev.action_undone(seat, undone)], now)
        result, after = self._append(info, folded, plan, command_id, now, fingerprint=fingerprint)
        if after is None:
            return self._replay(result, fingerprint, seat)
        log.info("action undone", extra={"game_id": game_id, "seat": seat, "undone_version": undone})
        return Submitted(self._submitted_body(result, seat, after))

    def enforce_deadline(self, game_id: str, *, now: datetime | None = None) -> bool:
        """Append the timeout of the seat to move if its deadline has passed; True if this call appended it.

        Idempotent and race-free by the usual rule: the append is at the version whose deadline passed, with
        the command id ``timeout:<game>:<version>``, so a move committed first makes it a version conflict,
        and a second enforcer gets the first one's append back as a duplicate."""
        folded = self.current(game_id)
        deadline = folded.life.deadline()
        now = now or self.now()
        if deadline is None or now < deadline:
            return False
        info = self._info(game_id)
        seat = folded.life.mover
        assert seat is not None
        plan = self._settle(info, folded, [ev.timed_out(seat, folded.life, format_time(deadline))], now)
        try:
            result, after = self._append(info, folded, plan, f"timeout:{game_id}:{folded.version}", now)
        except VersionConflict:
            return False
        if after is not None:
            log.info("seat timed out", extra={"game_id": game_id, "seat": seat, "version": result.version,
                                              "policy": folded.life.settings.timeout_policy})
        return after is not None

    def enforce_due(self, *, limit: int = 100) -> int:
        """One sweep: apply every passed deadline the store knows of; returns the timeouts appended."""
        appended = 0
        for game_id in self.store.due_games(format_time(self.now()), limit=limit):
            try:
                appended += self.enforce_deadline(game_id)
            except Exception:  # one broken game must not stop the sweep; it stays due
                log.exception("deadline enforcement failed", extra={"game_id": game_id})
        return appended

    def run_enforcer(self, stop: threading.Event, interval: float | None = None) -> None:
        """The enforcer loop (a daemon thread of every service process, or ``python -m torres_game enforce``):
        as many may run as there are processes, the appends keep timeouts exactly-once."""
        interval = self.config.enforcer_interval if interval is None else interval
        failing = False
        while not stop.is_set() and not self.store.closed:  # a store closed under it ends the loop quietly
            try:
                self.enforce_due()
                failing = False
            except Exception:  # the database away: say so once per outage, keep sweeping
                if not failing:
                    log.exception(f"deadline sweep failed; retrying every {interval} s")
                failing = True
            stop.wait(interval)


def _write_cursor(created_at: str, game_id: str) -> str:
    """An opaque list cursor: the last listed game's keyset, base64url (what it holds is no promise)."""
    return base64.urlsafe_b64encode(canonical_json([created_at, game_id]).encode()).decode().rstrip("=")


def _read_cursor(cursor: str | None) -> tuple[str, str] | None:
    if cursor is None:
        return None
    try:
        created_at, game_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        datetime.fromisoformat(created_at)
        if not isinstance(game_id, str):
            raise TypeError(game_id)
    except (ValueError, TypeError) as exc:
        raise ValidationFailed("not a cursor this service gave out", errors={"cursor": ["invalid cursor"]}) from exc
    return created_at, game_id
