"""Creating a game: a fresh one, or one at most once per Idempotency-Key or external id."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torres_rules as tr
from torres_online import lifecycle as lc
from torres_online.lifecycle import format_time
from torres_service.principals import DEFAULT_TENANT

from . import events as ev
from .access import Access, Credentials, token_hash
from .clock import Clock
from .config import Config
from .errors import ExternalIdReused, IdempotencyKeyReused, SeatTokensReissued, ValidationFailed
from .folding import Folded, GameStates
from .store.base import DEFAULT_VISIBILITY, EventStore, GameExists, GameRecord, GameSecret
from .writes import GameWriter, Submitted

# Game ids of idempotent creations: uuid5 of the Idempotency-Key in this namespace.
_CREATION_KEYS = uuid.UUID("5d0c8e4a-7a51-4b52-9e7e-3f1d2c6b8a90")


@dataclass(eq=False)
class GameCreation:
    """The creation use cases; the game's first event goes through :meth:`GameWriter.create`."""

    store: EventStore
    config: Config
    access: Access
    games: GameStates
    writer: GameWriter
    clock: Clock

    def create_game(
        self, creds: Credentials, *, edition: str, master: bool, options: dict[str, Any],
        seats: Sequence[dict[str, Any]], clock: dict[str, Any] | None = None, timeout: dict[str, Any] | None = None,
        undo: bool | None = None, tenant: str | None = None, visibility: str = DEFAULT_VISIBILITY,
        labels: Sequence[str] = (),
    ) -> dict[str, Any]:
        """A new game with a fresh id and random seat tokens: the 201 body. ``clock``, ``timeout`` and ``undo``
        are the online-play settings (:class:`torres_online.lifecycle.Settings`). The game belongs to the key's
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
        asked = (owner, visibility, edition, master, options, public_seats, list(labels), online)
        return self._replayed(game_id, asked, tokens, external_id=external_id)

    def _replayed(self, game_id: str, asked: tuple[Any, ...], tokens: list[str | None], *,
                  external_id: str | None) -> Submitted:
        """The original body of a creation made again, or why it cannot be answered: ``asked`` is the request's
        tenant, visibility, edition, master, options, seats, labels and online settings, which must be the game's."""
        reused = IdempotencyKeyReused if external_id is None else ExternalIdReused
        record = self.games.record(game_id)
        secret = self.store.get_secret(game_id)
        created = self.store.read(game_id, up_to=1)[0]
        what = "Idempotency-Key" if external_id is None else "external_id"
        if (record.tenant, record.visibility, record.edition, record.master, record.options, record.seats,
                record.labels, lc.Settings.from_json(created.payload.get("online"))) != asked:
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
                                            record.seats, tokens, record), replayed=True)

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
        now = self.clock()
        folded = Folded.of(1, *lc.step(None, None, created.type, created.payload, 1, format_time(now),
                                       lambda _: state))
        tenant = self.access.registries.current.tenant(owner)
        record = GameRecord(
            game_id=game_id, created_at="", edition=edition, master=master, options=options,
            seats=public_seats, status="active", summary=folded.summary, tenant=owner, visibility=visibility,
            external_id=external_id, labels=labels, webhooks=tenant is not None and tenant.webhook is not None,
        )
        secret = GameSecret(seed, [token_hash(t) if t else None for t in tokens])
        result = self.writer.create(record, secret, created, folded, now)
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
