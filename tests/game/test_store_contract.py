"""One contract suite for the event store, run against SQLite and PostgreSQL alike."""

from __future__ import annotations

import base64
import itertools
import shutil
import sqlite3
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from torres_audit import merkle
from torres_audit.chain import GENESIS_HASH
from torres_audit.note import Signer
from torres_audit.record import head_text
from torres_game.errors import GameNotFound, SeatTokenRevoked, VersionConflict
from torres_game.migrations import discover
from torres_game.store import EventStore, PostgresEventStore, SqliteEventStore
from torres_game.store.base import AiTurn, AppendOptions, GameFilter, GameRecord, GameSecret, NewEvent, Snapshot
from torres_game.translog import TransparencyLog

from .conftest import MIGRATIONS


def new_game(store: EventStore, *, events: int = 1, tenant: str = "default", visibility: str = "public",
             players: tuple[str | None, ...] = (None,), at: datetime | None = None, labels: tuple[str, ...] = (),
             external_id: str | None = None) -> str:
    game_id = str(uuid.uuid4())
    seats = [{"seat": n, "kind": "human", **({"player_id": p} if p else {})} for n, p in enumerate(players)]
    record = GameRecord(game_id, "", "rio_grande", False, {}, seats, summary={"stage": "setup"}, tenant=tenant,
                        visibility=visibility, labels=list(labels), external_id=external_id)
    created = [NewEvent("game_created", {"n": i}) for i in range(events)]
    store.create_game(record, GameSecret(2**100 + 7, ["h0", None]), created, f"create:{game_id}", now=at)
    return game_id


def act(i: int) -> list[NewEvent]:
    return [NewEvent("action_applied", {"seat": 0, "action": {"type": "end_turn", "i": i}})]


def raw(store: EventStore, sql: str) -> None:
    """Run SQL directly against the store's database, bypassing the store's API."""
    if isinstance(store, PostgresEventStore):
        with store.pool.connection() as conn:
            conn.execute(sql)
    else:
        assert isinstance(store, SqliteEventStore)
        with store._conn() as conn:
            conn.execute(sql)


class TestEventStoreContract:
    def test_create_and_read_back(self, store: EventStore) -> None:
        game_id = new_game(store)
        record = store.get_game(game_id)
        assert record is not None and record.version == 1 and record.status == "active"
        assert record.summary == {"stage": "setup"} and record.seats[0]["kind"] == "human"
        assert store.get_secret(game_id) == GameSecret(2**100 + 7, ["h0", None])
        (event,) = store.read(game_id)
        assert (event.version, event.type, event.prev_hash) == (1, "game_created", GENESIS_HASH)
        assert event.recomputed_hash() == event.hash
        assert store.get_game("nope") is None and store.current_version("nope") is None

    def test_append_versions_are_consecutive_and_chained(self, store: EventStore) -> None:
        game_id = new_game(store)
        for version in range(1, 6):
            result = store.append(game_id, version, act(version), f"c{version}")
            assert result.version == version + 1 and not result.duplicate
        two = store.append(game_id, 6, [*act(6), NewEvent("game_ended", {"winner": 0})], "end",
                           AppendOptions(status="over", summary={"stage": "over"}))
        assert [e.version for e in two.events] == [7, 8]
        events = store.read(game_id)
        assert [e.version for e in events] == list(range(1, 9))
        for before, after in itertools.pairwise(events):
            assert after.prev_hash == before.hash
        assert all(e.recomputed_hash() == e.hash for e in events)
        record = store.get_game(game_id)
        assert record is not None and (record.version, record.status) == (8, "over")
        assert [e.version for e in store.read(game_id, after=2, up_to=5)] == [3, 4, 5]
        assert [e.version for e in store.read(game_id, after=2, limit=2)] == [3, 4]

    def test_stale_append_is_a_version_conflict_and_changes_nothing(self, store: EventStore) -> None:
        game_id = new_game(store)
        store.append(game_id, 1, act(1), "a")
        with pytest.raises(VersionConflict) as info:
            store.append(game_id, 1, act(2), "b")
        assert info.value.current_version == 2
        with pytest.raises(VersionConflict):
            store.append(game_id, 5, act(2), "c")
        assert [e.version for e in store.read(game_id)] == [1, 2]
        assert store.find_command(game_id, "b") is None

    def test_repeated_command_id_returns_original_and_appends_nothing(self, store: EventStore) -> None:
        game_id = new_game(store)
        first = store.append(game_id, 1, act(1), "same", AppendOptions(fingerprint="f1"))
        store.append(game_id, 2, act(2), "other")
        # a stale version: still the original
        again = store.append(game_id, 1, act(99), "same", AppendOptions(fingerprint="f2"))
        assert again.duplicate and again.fingerprint == "f1"
        assert again.events == first.events
        assert store.current_version(game_id) == 3
        found = store.find_command(game_id, "same")
        assert found is not None and found.version == 2

    def test_an_append_with_a_superseded_seat_token_is_refused_and_changes_nothing(self, store: EventStore) -> None:
        """``seat_token`` (seat, generation): refused once a later generation of that seat's token was recorded
        (a reissue or a revocation), before anything else, a known command id included; other seats' tokens and
        appends without one are unaffected."""
        game_id = new_game(store, players=(None, None))
        store.append(game_id, 1, act(1), "a", AppendOptions(seat_token=(0, 0)))
        now = datetime.now(UTC)
        generation = store.add_seat_token(game_id, 0, "h0-new", issued_at=now, expires_at=now + timedelta(hours=1))
        for command in ("b", "a"):
            with pytest.raises(SeatTokenRevoked):
                store.append(game_id, 2, act(2), command, AppendOptions(seat_token=(0, 0)))
        assert store.current_version(game_id) == 2 and store.find_command(game_id, "b") is None
        store.append(game_id, 2, act(2), "c", AppendOptions(seat_token=(0, generation)))
        store.append(game_id, 3, act(3), "d", AppendOptions(seat_token=(1, 0)))
        store.add_seat_token(game_id, 0, None, issued_at=now, expires_at=None)  # revoked: no valid token
        with pytest.raises(SeatTokenRevoked):
            store.append(game_id, 4, act(4), "e", AppendOptions(seat_token=(0, generation)))
        assert store.append(game_id, 4, act(4), "f").version == 5

    def test_unknown_game(self, store: EventStore) -> None:
        with pytest.raises(GameNotFound):
            store.append("missing", 0, act(1), "x")

    def test_update_delete_and_gaps_are_refused_by_the_database(self, store: EventStore) -> None:
        game_id = new_game(store)
        store.append(game_id, 1, act(1), "a")
        refused = (sqlite3.DatabaseError, psycopg.Error)
        with pytest.raises(refused, match="append-only"):
            raw(store, f"UPDATE events SET type = 'x' WHERE game_id = '{game_id}'")
        with pytest.raises(refused, match="append-only"):
            raw(store, f"DELETE FROM events WHERE game_id = '{game_id}'")
        if isinstance(store, PostgresEventStore):
            with pytest.raises(refused, match="append-only"):
                raw(store, "TRUNCATE events CASCADE")
        with pytest.raises(refused, match="predecessor"):  # a gap: version 4 after 2
            raw(store, "INSERT INTO events (game_id, version, type, payload, schema_version, created_at,"
                       f" command_id, prev_hash, hash) VALUES ('{game_id}', 4, 'x', '{{}}', 1,"
                       f" '2026-01-01T00:00:00+00:00', 'z', '{'0' * 64}', 'h')")
        assert [e.version for e in store.read(game_id)] == [1, 2]

    def test_notification_log_is_ordered_across_games(self, store: EventStore) -> None:
        start = (store.notifications(after=0, limit=100000) or [None])[-1]
        after = start.position if start else 0
        games = [new_game(store) for _ in range(3)]
        expected = [(g, 1) for g in games]
        for version in (1, 2):
            for g in games:
                store.append(g, version, act(version), f"c{version}")
                expected.append((g, version + 1))
        log = store.notifications(after=after, limit=1000)
        assert [(e.game_id, e.version) for e in log] == expected
        positions = [e.position for e in log]
        assert positions == sorted(positions) and len(set(positions)) == len(positions)
        page = store.notifications(after=log[2].position, limit=2)
        assert [e.position for e in page] == positions[3:5]

    def test_snapshots(self, store: EventStore) -> None:
        game_id = new_game(store)
        assert store.latest_snapshot(game_id) is None
        store.save_snapshot(Snapshot(game_id, 20, {"v": 20}))
        store.save_snapshot(Snapshot(game_id, 40, {"v": 40}))
        store.save_snapshot(Snapshot(game_id, 40, {"v": "ignored duplicate"}))
        assert store.latest_snapshot(game_id) == Snapshot(game_id, 40, {"v": 40})
        assert store.latest_snapshot(game_id, at_most=39) == Snapshot(game_id, 20, {"v": 20})
        assert store.latest_snapshot(game_id, at_most=19) is None

    def test_ai_turn_outbox_is_written_with_the_append(self, store: EventStore) -> None:
        game_id = new_game(store)
        store.append(game_id, 1, act(1), "a", AppendOptions(ai_turn=AiTurn(game_id, 1, 2)))
        with pytest.raises(VersionConflict):
            store.append(game_id, 1, act(1), "b", AppendOptions(ai_turn=AiTurn(game_id, 0, 2)))
        pending = [t for t in store.pending_ai_turns(limit=10000) if t.game_id == game_id]
        assert [(t.seat, t.version) for t in pending] == [(1, 2)]
        store.complete_ai_turn(game_id, 2)
        assert not [t for t in store.pending_ai_turns(limit=10000) if t.game_id == game_id]

    def test_migrations_are_recorded_and_idempotent(self, store: EventStore) -> None:
        assert store.migrate() == []
        applied, pending = store.migration_status()
        assert applied == [m.number for m in discover(MIGRATIONS, store.backend)] and pending == []
        store.ping()

    def test_tenant_and_visibility_are_recorded(self, store: EventStore) -> None:
        tenant = f"t-{uuid.uuid4().hex[:8]}"
        game_id = new_game(store, tenant=tenant, visibility="private")
        record = store.get_game(game_id)
        assert record is not None and (record.tenant, record.visibility) == (tenant, "private")
        plain = store.get_game(new_game(store))
        assert plain is not None and (plain.tenant, plain.visibility) == ("default", "public")
        with pytest.raises((sqlite3.DatabaseError, psycopg.Error), match=r"(?i)check"):  # the column's CHECK
            raw(store, f"UPDATE games SET visibility = 'secret' WHERE game_id = '{game_id}'")

    def test_list_games_is_one_tenants_newest_first_with_filters_and_keyset_pages(self, store: EventStore) -> None:
        tenant, other = f"t-{uuid.uuid4().hex[:8]}", f"t-{uuid.uuid4().hex[:8]}"
        start = datetime(2031, 1, 1, tzinfo=UTC)
        at = [start + timedelta(minutes=n) for n in range(7)]
        games = [new_game(store, tenant=tenant, at=at[n], visibility=("public", "unlisted", "private")[n % 3],
                          players=("alice", f"p{n}") if n % 2 else (f"p{n}", None)) for n in range(6)]
        same_time = new_game(store, tenant=tenant, at=at[5])  # a tie on created_at: game_id decides
        new_game(store, tenant=other, at=at[6], players=("alice",))
        store.append(games[0], 1, [NewEvent("game_ended", {})], "end", AppendOptions(status="over"))

        mine = {*games, same_time}
        listed = store.list_games(GameFilter(tenant=tenant), limit=100)
        assert [g.game_id for g in listed] == [g.game_id for g in sorted(
            listed, key=lambda g: (g.created_at, g.game_id), reverse=True)]
        assert {g.game_id for g in listed} == mine and all(g.tenant == tenant for g in listed)
        assert listed[-1].game_id == games[0] and listed[-1].status == "over"

        pages: list[str] = []
        cursor: tuple[str, str] | None = None
        while True:
            page = store.list_games(GameFilter(tenant=tenant), limit=3, before=cursor)
            pages += [g.game_id for g in page]
            if len(page) < 3:
                break
            cursor = (page[-1].created_at, page[-1].game_id)
        assert pages == [g.game_id for g in listed]  # every game once, in order, across the tie

        by = lambda **kw: {g.game_id for g in store.list_games(GameFilter(tenant=tenant, **kw), limit=100)}  # noqa: E731
        assert by(player_id="alice") == {games[1], games[3], games[5]}
        assert by(player_id="p2") == {games[2]} and by(player_id="nobody") == set()
        assert by(status="over") == {games[0]} and by(status="active") == mine - {games[0]}
        assert by(visibility="private") == {games[2], games[5]}
        assert by(created_after=at[3]) == {games[4], games[5], same_time}
        assert by(created_before=at[2]) == {games[0], games[1]}
        assert by(created_after=at[1], created_before=at[3]) == {games[2]}
        everyone = {g.game_id for g in store.list_games(GameFilter(created_after=start - timedelta(seconds=1)),
                                                         limit=100_000)}
        assert everyone >= mine and len(everyone) == len(mine) + 1  # the other tenant's too

    def test_a_games_portal_data_is_kept_and_listed_by(self, store: EventStore) -> None:
        """A game's external id and labels come back as stored; a list finds a tenant's game by its
        external id and the games holding a label (another tenant's game with the same id or label is not in it)."""
        tenant, other = f"t-{uuid.uuid4().hex[:8]}", f"t-{uuid.uuid4().hex[:8]}"
        league = new_game(store, tenant=tenant, labels=("friday_league", "round-2"), external_id="match")
        cup = new_game(store, tenant=tenant, labels=("cup",), external_id="m-18")
        plain = new_game(store, tenant=tenant)
        new_game(store, tenant=other, labels=("cup",), external_id="m-18")
        record = store.get_game(league)
        assert record is not None and (record.external_id, record.labels) == ("match", ["friday_league", "round-2"])
        bare = store.get_game(plain)
        assert bare is not None and (bare.external_id, bare.labels) == (None, [])
        by = lambda **kw: [g.game_id for g in store.list_games(GameFilter(tenant=tenant, **kw))]  # noqa: E731
        assert by(label="cup") == [cup] and by(label="round-2") == [league] and by(label="round") == []
        assert by(external_id="m-18") == [cup] and by(external_id="nothing") == []
        assert by(label="friday_league", external_id="m-18") == []
        assert len(store.list_games(GameFilter(label="cup"), limit=100_000)) >= 2  # every tenant's without one

    def test_notifications_of_one_tenant_skip_the_others_positions(self, store: EventStore) -> None:
        tenant, other = f"t-{uuid.uuid4().hex[:8]}", f"t-{uuid.uuid4().hex[:8]}"
        start = (store.notifications(after=0, limit=100000) or [None])[-1]
        after = start.position if start else 0
        mine, theirs = new_game(store, tenant=tenant), new_game(store, tenant=other)
        for version in (1, 2):
            store.append(theirs, version, act(version), f"c{version}")
            store.append(mine, version, act(version), f"c{version}")
        log = store.notifications(after=after, limit=1000, tenant=tenant)
        assert [(e.game_id, e.version) for e in log] == [(mine, 1), (mine, 2), (mine, 3)]
        everything = store.notifications(after=after, limit=1000)
        assert [e for e in everything if e.game_id == mine] == log
        assert store.notifications(after=log[0].position, limit=1, tenant=tenant) == log[1:2]
        assert log[0].recomputed_hash() == log[0].hash


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_games_from_before_the_tenants_migration_are_the_default_tenants_and_public(
    backend: str, tmp_path: Path, throwaway_database: Callable[[str], AbstractContextManager[str]],
) -> None:
    """Migration 0007 (sqlite 0004) on a database that already holds a game: the row gets tenant 'default' and
    visibility 'public' (what every game was before), and the store reads it back as such."""
    number = {"postgres": 7, "sqlite": 4}[backend]
    older = tmp_path / "migrations"
    (older / backend).mkdir(parents=True)
    for migration in discover(MIGRATIONS, backend)[: number - 1]:
        shutil.copy(MIGRATIONS / backend / f"{migration.number:04d}_{migration.name}.sql", older / backend)
    insert = ("INSERT INTO games (game_id, created_at, updated_at, edition, master, options, seats, version,"
              " status, summary) VALUES ('old-game', '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00',"
              " 'rio_grande', {false}, '{{}}', '[]', 0, 'active', '{{}}')")

    def check(store: EventStore) -> None:
        assert store.migrate() == [m.number for m in discover(older, backend)]
        raw(store, insert.format(false="false" if backend == "postgres" else "0"))
        store.migrations_dir = MIGRATIONS  # type: ignore[attr-defined]  # the release with the migration
        assert store.migrate() == [m.number for m in discover(MIGRATIONS, backend)][number - 1:]
        record = store.get_game("old-game")
        assert record is not None and (record.tenant, record.visibility) == ("default", "public")
        assert [g.game_id for g in store.list_games(GameFilter(tenant="default"))] == ["old-game"]

    if backend == "sqlite":
        store: EventStore = SqliteEventStore(tmp_path / "old.sqlite3", migrations_dir=older)
        try:
            check(store)
        finally:
            store.close()
        return
    with throwaway_database("torres_game_migration") as url:
        store = PostgresEventStore(url, migrations_dir=older)
        try:
            check(store)
        finally:
            store.close()


@pytest.mark.postgres
def test_a_definition_is_applied_when_its_text_changes_and_replaces_every_older_signature(
    tmp_path: Path, throwaway_database: Callable[[str], AbstractContextManager[str]],
) -> None:
    """definitions/torres_append.sql: applied after the numbered migrations, not again while its text is the same,
    and again -- dropping whatever other signatures of the function a database holds -- once it changes."""
    release = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS / "postgres", release / "postgres")
    definition = release / "postgres" / "definitions" / "torres_append.sql"

    def signatures(store: PostgresEventStore) -> list[str]:
        with store.pool.connection() as conn:
            rows = conn.execute("SELECT oid::regprocedure::text FROM pg_proc WHERE proname = 'torres_append'")
            return [row[0] for row in rows]

    def applied(store: PostgresEventStore) -> tuple[str, datetime]:
        with store.pool.connection() as conn:
            row = conn.execute("SELECT sha256, applied_at FROM schema_definitions WHERE name = 'torres_append'")
            return row.fetchone()  # type: ignore[return-value]

    with throwaway_database("torres_game_definitions") as url:
        store = PostgresEventStore(url, migrations_dir=release)
        try:
            store.migrate()
            first = applied(store)
            assert len(signatures(store)) == 1 and new_game(store)  # an append works on the fresh database
            store.migrate()
            assert applied(store) == first, "an unchanged definition is not applied again"
            raw(store, "CREATE FUNCTION torres_append(p text) RETURNS void LANGUAGE sql AS 'SELECT 1'")
            definition.write_text(definition.read_text() + "-- the next release's edit\n")
            assert store.migrate() == []
            second = applied(store)
            assert second[0] != first[0] and second[1] > first[1]
            assert len(signatures(store)) == 1 and signatures(store)[0] != "torres_append(text)"
            assert new_game(store, events=3)
        finally:
            store.close()


class TestTransparencyLogContract:
    """The transparency log's part of the store, on both backends: a game's end queues its head in the
    append's transaction; the sequencer integrates each leaf exactly once, whatever the number of sequencers;
    the stored tree answers proofs that agree with the RFC 9162 reference in ``torres_audit.merkle``; the
    database refuses to rewrite what was integrated."""

    @staticmethod
    def _end(store: EventStore) -> str:
        game_id = new_game(store)
        store.append(game_id, 1, [NewEvent("game_ended", {"scores": [1]})], f"end:{game_id}")
        return game_id

    @staticmethod
    def _leaves(store: EventStore) -> list[bytes]:
        """Every integrated leaf, by index, read past the store's API (what an auditor of the database sees)."""
        sql = "SELECT leaf_index, game_id, version, head_hash FROM log_leaves WHERE leaf_index IS NOT NULL" \
              " ORDER BY leaf_index"
        if isinstance(store, PostgresEventStore):
            with store.pool.connection() as conn:
                rows = conn.execute(sql).fetchall()
        else:
            assert isinstance(store, SqliteEventStore)
            with store._conn() as conn:
                rows = conn.execute(sql).fetchall()
        assert [r[0] for r in rows] == list(range(len(rows))), "leaf indexes must be 0..n-1, each once"
        return [head_text(r[1], r[2], r[3], "over").encode() for r in rows]

    def test_a_finished_game_is_queued_with_its_end_and_integrated_once(self, store: EventStore) -> None:
        log = TransparencyLog(store, Signer.generate("test.invalid/log"), batch=3)
        log.integrate_all()
        before = log.checkpoint()
        running = new_game(store)
        ended = [self._end(store) for _ in range(5)]
        assert store.log_leaf(game_id=ended[0]) is None and store.log_pending() >= 5
        assert log.integrate_all() >= 5 and store.log_pending() == 0
        assert store.log_leaf(game_id=running) is None
        leaves = self._leaves(store)
        after = log.checkpoint()
        assert after.tree_size == len(leaves) and after.root == merkle.root(leaves)
        for game_id in ended:
            leaf = store.log_leaf(game_id=game_id)
            assert leaf is not None and store.log_leaf(leaf_hash=leaf.leaf_hash) == leaf
            proof = log.inclusion(leaf)
            assert [base64.b64decode(p) for p in proof["proof"]] == merkle.inclusion_proof(leaf.leaf_index, leaves)
        if before.tree_size:
            proof = log.consistency(before.tree_size)
            merkle.verify_consistency(before.tree_size, after.tree_size, [base64.b64decode(p) for p in proof["proof"]],
                                      before.root, after.root)

    def test_the_database_refuses_to_rewrite_the_log(self, store: EventStore) -> None:
        log = TransparencyLog(store, Signer.generate("test.invalid/log"))
        game_id = self._end(store)
        log.integrate_all()
        errors = (psycopg.Error, sqlite3.Error)
        for sql in (f"UPDATE log_leaves SET leaf_index = leaf_index + 1000000 WHERE game_id = '{game_id}'",
                    f"UPDATE log_leaves SET head_hash = 'x' WHERE game_id = '{game_id}'",
                    f"DELETE FROM log_leaves WHERE game_id = '{game_id}'",
                    "DELETE FROM log_nodes", "UPDATE log_checkpoints SET note = 'x'", "DELETE FROM log_checkpoints"):
            with pytest.raises(errors, match="append-only"):
                raw(store, sql)

    def test_cosignatures_are_kept_once_per_witness_and_never_rewritten(self, store: EventStore) -> None:
        log = TransparencyLog(store, Signer.generate("test.invalid/log"))
        self._end(store)
        log.integrate_all()
        size = log.checkpoint().tree_size
        self._end(store)
        log.integrate_all()
        latest = log.checkpoint().tree_size
        store.add_log_cosignatures(size, {"w1": "— w1 AAAA\n", "w2": "— w2 BBBB\n"})
        store.add_log_cosignatures(size, {"w1": "— w1 CCCC\n"})  # a second answer: the first line stays
        store.add_log_cosignatures(latest, {"w1": "— w1 DDDD\n"})
        assert store.log_cosignatures(size) == {"w1": "— w1 AAAA\n", "w2": "— w2 BBBB\n"}
        assert store.log_witnessed_size("w1") == latest and store.log_witnessed_size("w3") == 0
        assert store.log_cosigned_size(["w1", "w2"], 2) == size
        assert store.log_cosigned_size(["w1", "w2"], 1) == latest
        assert store.log_cosigned_size(["w2"], 2) is None
        for sql in ("UPDATE log_cosignatures SET line = 'x'", "DELETE FROM log_cosignatures"):
            with pytest.raises((psycopg.Error, sqlite3.Error), match="append-only"):
                raw(store, sql)

    def test_concurrent_sequencers_integrate_every_leaf_exactly_once(self, store: EventStore) -> None:
        import threading

        for _ in range(40):
            self._end(store)
        signer = Signer.generate("test.invalid/log")
        logs = [TransparencyLog(store, signer, batch=7) for _ in range(4)]
        threads = [threading.Thread(target=log.integrate_all) for log in logs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        logs[0].integrate_all()  # a sequencer that found the lock taken left the rest to the others
        leaves = self._leaves(store)
        assert store.log_pending() == 0 and len(set(leaves)) == len(leaves)
        assert logs[0].checkpoint().root == merkle.root(leaves)
