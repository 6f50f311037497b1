"""The game service: the composition root of its parts, nothing about HTTP.

Each concern is a small part with one method per use case, and callers (the HTTP views, the AI turns, the
CLI) call the part they need: :attr:`GameService.creation` and :attr:`GameService.commands` write,
:attr:`GameService.queries` read, :attr:`GameService.credentials` hands out seat tokens, spectator tokens and
stream tickets, :attr:`GameService.deadlines` enforces the clocks, :attr:`GameService.games` loads states, and
:attr:`GameService.analyses` requests and reads post-game analyses.
Every write goes through the one :class:`~.writes.GameWriter`, which checks the version before one atomic
append, so the in-process bot, an external AI worker and human players are held to exactly the same rules.
Callers pass plain values and a :class:`~.access.Credentials`; failures are :mod:`torres_game.errors` values.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

from torres_audit.note import Signer, Verifier

from .access import Access
from .analyses import AnalysisDesk
from .clock import Clock
from .commands import PlayCommands
from .config import DEV_LOG_SIGNER_NAME, DEV_SIGNER_NAME, Config
from .creation import GameCreation
from .credentials import CredentialDesk, SeatTokenBooks
from .deadlines import DeadlineEnforcer
from .folding import GameStates
from .queries import GameQueries
from .store.base import EventStore
from .translog import TransparencyLog
from .waiting import WakeHub, hub_for, release_hub
from .webhooks import WebhookWorker
from .writes import GameWriter

log = logging.getLogger(__name__)


def hub_key(store: EventStore) -> str:
    """Which database a store writes to: services on the same database in one process share a hub."""
    return f"{store.backend}:{getattr(store, 'url', None) or getattr(store, 'path', '')}"


class AiDriver(Protocol):
    """What the service tells of due AI turns; the drivers, and how a turn is played, are in ``ai_turns``."""

    def start(self, service: GameService) -> None:
        """Begin work; pick up turns left pending in the outbox by a previous process."""

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        """An AI seat is to move at ``version`` (already recorded in the outbox). Must not block."""

    def analysis_due(self, game_id: str, depth: str) -> None:
        """A post-game analysis is pending (its row written): advance it behind every AI turn. Must not block."""

    def close(self) -> None: ...


class GameService:
    """Builds the parts on one store, one clock and one wake-up hub, and runs the background threads."""

    def __init__(self, store: EventStore, config: Config, driver: AiDriver, *, listen: bool = True) -> None:
        """``listen=False``: no PostgreSQL LISTEN connection, for processes where nobody waits on a game (the AI
        worker, the sweeper); their appends still notify the listeners of every other process."""
        self.store = store
        self.config = config
        self.driver = driver
        self.clock = Clock()
        # Signs game records (docs/audit.md); without TORRES_SIGNING_KEY, a key of this process only (a dev server).
        self.signer = Signer.from_skey(config.signing_key) if config.signing_key else Signer.generate(DEV_SIGNER_NAME)
        # The log signs with a key of its own (docs/audit.md section 9: a verifier refuses a checkpoint signed by
        # the key that signed the head); without TORRES_LOG_SIGNING_KEY, one of this process only.
        log_key: Signer | Verifier
        if config.log_signing_key:
            log_key = Signer.from_skey(config.log_signing_key)
        elif config.log_key:
            log_key = Verifier.from_vkey(config.log_key)  # a web process: it serves the log, it cannot sign
        else:
            log_key = Signer.generate(DEV_LOG_SIGNER_NAME)
        if isinstance(log_key, Signer) and log_key.verifier() == self.signer.verifier():
            raise ValueError("TORRES_LOG_SIGNING_KEY is TORRES_SIGNING_KEY: the transparency log needs a key of its "
                             "own (python -m torres_audit keygen <name>), or every record's inclusion is refused")
        #: Whether the log's checkpoints would be signed by a key this process generated (no key configured).
        self.ephemeral_log_key = not config.log_signing_key and not config.log_key
        self.translog = TransparencyLog(store, log_key, batch=config.log_batch,
                                        published=tuple(Verifier.from_vkey(k) for k in config.log_published_keys),
                                        witnesses=config.log_witnesses, witness_quorum=config.log_witness_quorum,
                                        witness_timeout=config.log_witness_timeout)
        listen_url = getattr(store, "url", None) if listen and store.backend == "postgres" else None
        self._hub_key = hub_key(store) + ("" if listen else ":quiet")  # not a listening service's
        self.hub: WakeHub = hub_for(self._hub_key, max_open=config.max_streams, listen_url=listen_url)
        self.seat_tokens = SeatTokenBooks(store, config, self.hub, self.clock, listening=listen)
        self.hub.watch(self.seat_tokens.forget)
        self.access = Access(config, seat_tokens=self.seat_tokens.seat_tokens)
        self.games = GameStates(store, config)
        self.writer = GameWriter(store, config, self.games, self.seat_tokens, self.hub, driver, self.clock)
        self.deadlines = DeadlineEnforcer(store, config, self.games, self.writer, self.clock)
        self.creation = GameCreation(store, config, self.access, self.games, self.writer, self.clock)
        self.commands = PlayCommands(store, self.access, self.games, self.writer, self.deadlines, self.clock)
        self.queries = GameQueries(store, self.access, self.games, self.hub, self.clock, self.signer, self.translog)
        self.credentials = CredentialDesk(store, config, self.access, self.games, self.seat_tokens, self.clock)
        self.analyses = AnalysisDesk(store, self.access, self.games, driver)
        self._sequencer: threading.Thread | None = None
        self._enforcer: threading.Thread | None = None
        self._webhook_thread: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self) -> None:
        self.driver.start(self)
        if self.config.enforcer_interval > 0:
            self._enforcer = threading.Thread(target=self.deadlines.run, args=(self._stop,), name="torres-enforcer",
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
        elif self.config.log_interval > 0 and self.translog.signer is not None:
            self._sequencer = threading.Thread(target=self.translog.run, args=(self._stop, self.config.log_interval),
                                               name="torres-sequencer", daemon=True)
            self._sequencer.start()
        if self.config.webhook_interval > 0:
            worker = WebhookWorker(self.store, self.access.registries, self.config)
            self.writer.webhook_worker = worker
            self._webhook_thread = threading.Thread(target=worker.run, args=(self._stop,),
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
        worker = self.writer.webhook_worker
        if worker is not None and self._webhook_thread is not None:
            worker.wake()
            self._webhook_thread.join(timeout=10)
            worker.close()
            self.writer.webhook_worker, self._webhook_thread = None, None
        self.driver.close()
        if self.translog.witnesses is not None:
            self.translog.witnesses.close()
        self.hub.unwatch(self.seat_tokens.forget)
        release_hub(self._hub_key)
        self.store.close()
