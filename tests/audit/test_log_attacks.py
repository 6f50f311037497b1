"""The transparency log against its operator, on real PostgreSQL with real processes: a gunicorn game
service whose sequencer logs every finished game, ``python -m torres_audit verify`` and ``monitor`` as a third
party runs them, and a database superuser who rewrites, deletes, swaps and truncates games, replaces a seed,
edits an event, forges a checkpoint, rebuilds the tree and shows two monitors two histories. Each attack must be
caught with a message that says what happened; and a sequencer SIGKILLed mid-batch loses and duplicates
nothing."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from flask import Flask
from game.conftest import ADMIN_KEY, API_KEY, MIGRATIONS, make_config
from game.online_helpers import Clock
from game.servers import ROOT, Server, gunicorn
from polling import wait_until

from torres_audit import merkle
from torres_audit.chain import GENESIS_HASH, chain_hash, content_hash
from torres_audit.note import Checkpoint, Signer, open_checkpoint
from torres_audit.record import head_text
from torres_game.app import create_app
from torres_game.store import PostgresEventStore
from torres_game.translog import wait_for_sequencer
from torres_online.events import seed_commitment
from torres_online.lifecycle import format_time

from .conftest import service
from .games import Plan, play

pytestmark = pytest.mark.postgres

SIGNER = Signer.generate("torres.test/games-2026")
LOG = Signer.generate("torres.test/log-2026")
SHORT = Plan(2, "rio_grande", abandon_after=12)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "torres_audit", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


@contextlib.contextmanager
def served(url: str) -> Iterator[Server]:
    with gunicorn(url, extra_env={"TORRES_SIGNING_KEY": SIGNER.skey(), "TORRES_LOG_SIGNING_KEY": LOG.skey(),
                                       "TORRES_LOG_INTERVAL": "0.1"}) as server:
        yield server


def base(server: Server) -> str:
    return f"http://127.0.0.1:{server.port}"


def superuser(url: str, *statements: tuple[str, tuple[Any, ...]]) -> None:
    """What an operator with the database's superuser can do: anything, triggers off."""
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        for sql, params in statements:
            conn.execute(sql, params)  # type: ignore[arg-type]


def rechained(rows: list[tuple[Any, ...]], game_id: str) -> list[tuple[Any, ...]]:
    """Events (version, type, payload, schema_version, created_at, command_id) of some game, moved to
    ``game_id`` with every content hash and chain hash recomputed, as a forger who rewrites a game does."""
    out, prev = [], GENESIS_HASH
    for version, type_, payload, schema, created, command in rows:
        digest = chain_hash(prev, content_hash(game_id=game_id, version=version, type=type_, payload=payload,
                                               schema_version=schema, created_at=format_time(created),
                                               command_id=command))
        out.append((game_id, version, type_, psycopg.types.json.Jsonb(payload), schema, created, command, prev, digest))
        prev = digest
    return out


#: Positions are drawn by a trigger (migration 0006), which the superuser switched off with the others.
INSERT_EVENT = ("INSERT INTO events (position, game_id, version, type, payload, schema_version, created_at, command_id,"
                " prev_hash, hash) VALUES ((SELECT max(position) + 1 FROM events), %s, %s, %s, %s, %s, %s, %s, %s, %s)")


def read_game(url: str, game_id: str) -> tuple[list[tuple[Any, ...]], str, tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT version, type, payload, schema_version, created_at, command_id FROM events"
                            " WHERE game_id = %s ORDER BY version", (game_id,)).fetchall()
        seed = conn.execute("SELECT seed FROM game_secrets WHERE game_id = %s", (game_id,)).fetchone()
        game = conn.execute("SELECT version, status, summary, seats FROM games WHERE game_id = %s",
                            (game_id,)).fetchone()
    assert seed is not None and game is not None
    return rows, seed[0], game


def write_game(url: str, target: str, donor: tuple[list[tuple[Any, ...]], str, tuple[Any, ...]]) -> None:
    """Rewrite ``target`` wholesale as the (legal) game ``donor``: its events, seed and summary, re-hashed."""
    rows, seed, game = donor
    superuser(url, ("DELETE FROM events WHERE game_id = %s", (target,)),
              *[(INSERT_EVENT, row) for row in rechained(rows, target)],
              ("UPDATE game_secrets SET seed = %s WHERE game_id = %s", (seed, target)),
              ("UPDATE games SET version = %s, status = %s, summary = %s, seats = %s WHERE game_id = %s",
               (game[0], game[1], psycopg.types.json.Jsonb(game[2]), psycopg.types.json.Jsonb(game[3]), target)),
              ("DELETE FROM snapshots WHERE game_id = %s", (target,)))


@pytest.fixture(scope="module")
def attacked(throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]],
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Eight finished games in a logged database, their records kept by the portal, and monitor A's state."""
    with throwaway_database("torres_log_attacks") as url:
        clock = Clock()
        app: Flask = create_app(make_config(url, enforcer_interval=0, signing_key=SIGNER.skey(),
                                           log_signing_key=LOG.skey(), log_interval=0))
        svc = service(app)
        svc.clock.now = clock
        games = [play(svc, app.test_client(), clock, SHORT, seed=100 + i) for i in range(8)]
        svc.translog.integrate_all()
        svc.close()
        tmp = tmp_path_factory.mktemp("attacks")
        with served(url) as server:
            kept = {}
            for gid in games:
                path = tmp / f"{gid}.json"
                path.write_bytes(server.client.get(f"/v1/games/{gid}/record").data)
                kept[gid] = path
            first = cli("monitor", "--state", str(tmp / "a.cp"), "--url", base(server),
                        "--key", LOG.verifier().vkey(),
                        *[arg for path in kept.values() for arg in ("--record", str(path))])
            assert first.returncode == 0, first.stderr
            assert "trusted on first use" in first.stdout and first.stdout.endswith("OK\n")
        yield {"url": url, "games": games, "kept": kept, "tmp": tmp}


def monitor(ctx: dict[str, Any], server: Server, state: str, *records: str, extra: tuple[str, ...] = (),
            ) -> subprocess.CompletedProcess[str]:
    return cli("monitor", "--state", str(ctx["tmp"] / state), "--url", base(server), "--key", LOG.verifier().vkey(),
               *[arg for gid in records for arg in ("--record", str(ctx["kept"][gid]))], *extra)


def verify_served(ctx: dict[str, Any], server: Server, gid: str) -> subprocess.CompletedProcess[str]:
    path = ctx["tmp"] / f"served-{gid}.json"
    path.write_bytes(server.client.get(f"/v1/games/{gid}/record").data)
    checkpoint = ctx["tmp"] / "fetched.cp"
    checkpoint.write_bytes(server.client.get("/v1/audit/checkpoint").data)
    return cli("verify", str(path), "--key", SIGNER.verifier().vkey(), "--key", LOG.verifier().vkey(), "--checkpoint",
               str(checkpoint))


def test_every_kept_record_verifies_with_its_inclusion_against_the_fetched_checkpoint(attacked: dict[str, Any]) -> None:
    with served(attacked["url"]) as server:
        for gid in attacked["games"]:
            result = verify_served(attacked, server, gid)
            assert result.returncode == 0, result.stdout
            assert "ok    inclusion  the head is leaf" in result.stdout and "VERIFIED" in result.stdout


def test_the_operator_attacks_are_each_caught_with_a_precise_message(attacked: dict[str, Any]) -> None:
    url = attacked["url"]
    g_rewrite, g_donor, g_delete, g_swap1, g_swap2, g_truncate, g_seed, g_edit = attacked["games"]
    # 1. rewrite a finished game wholesale as another legal game, every hash recomputed, the tree left alone
    write_game(url, g_rewrite, read_game(url, g_donor))
    # 2. delete a game
    superuser(url, *[(f"DELETE FROM {table} WHERE game_id = %s", (g_delete,)) for table in
                     ("events", "commands", "snapshots", "ai_turns", "seat_tokens", "game_secrets", "games")])
    # 3. swap two games (each re-keyed and re-hashed as the other)
    one, two = read_game(url, g_swap1), read_game(url, g_swap2)
    write_game(url, g_swap1, two)
    write_game(url, g_swap2, one)
    # 4. truncate a game: its end removed, the game active again
    superuser(url, ("DELETE FROM events WHERE game_id = %s AND type = 'game_ended'", (g_truncate,)),
              ("UPDATE games SET status = 'active', version = version - 1 WHERE game_id = %s", (g_truncate,)),
              ("DELETE FROM snapshots WHERE game_id = %s", (g_truncate,)))
    # 5. replace the seed (and its commitment) without re-hashing
    with psycopg.connect(url) as conn:
        seed = int(conn.execute("SELECT seed FROM game_secrets WHERE game_id = %s", (g_seed,)).fetchone()[0])  # type: ignore[index]
    superuser(url, ("UPDATE game_secrets SET seed = %s WHERE game_id = %s", (str(seed ^ 0x5EED), g_seed)))
    # 6. edit one timestamp (version 3) and one action (version 5: another seat), hashes left as they were
    superuser(url, ("UPDATE events SET created_at = created_at + interval '1 microsecond' WHERE game_id = %s"
                    " AND version = 3", (g_edit,)),
              ("UPDATE events SET payload = jsonb_set(payload, '{seat}', to_jsonb(1 - (payload->>'seat')::int))"
               " WHERE game_id = %s AND version = 5", (g_edit,)))
    assert seed_commitment(seed ^ 0x5EED) != seed_commitment(seed)

    with served(url) as server:
        out = verify_served(attacked, server, g_rewrite)
        assert out.returncode == 1 and "FAIL  inclusion  version" in out.stdout
        assert "the inclusion proof does not verify" in out.stdout, out.stdout
        out = verify_served(attacked, server, g_swap1)
        assert out.returncode == 1 and "the inclusion proof does not verify" in out.stdout, out.stdout
        out = verify_served(attacked, server, g_seed)
        assert out.returncode == 1 and "does not match the commitment" in out.stdout, out.stdout
        out = verify_served(attacked, server, g_edit)
        assert out.returncode == 1 and "REFUSED at version 3: hash mismatch" in out.stdout, out.stdout

        for gid, words in ((g_rewrite, f"game {g_rewrite} was rewritten: the service now serves head"),
                           (g_delete, f"game {g_delete} was deleted: the service answers 404 to the operator's key,"
                                      " but the log holds"),
                           (g_swap2, f"game {g_swap2} was rewritten"),
                           (g_truncate, f"game {g_truncate} was rewritten"),
                           (g_seed, None), (g_edit, None)):
            out = monitor(attacked, server, "a.cp", gid, extra=("--admin-key", ADMIN_KEY))
            if words is None:  # the head is untouched: the monitor has nothing to say, the verifier has (above)
                assert out.returncode == 0, out.stderr
                continue
            assert out.returncode == 1 and "INCONSISTENT" in out.stderr and words in out.stderr, out.stderr
        assert ", active; the head logged at leaf" in monitor(attacked, server, "a.cp", g_truncate).stderr
        # Without the operator's key a 404 proves nothing: a private game answers the same to a reader it hides
        # from. The monitor says what it saw, concludes nothing (exit 2) and never cries "deleted".
        anonymous = monitor(attacked, server, "a.cp", g_delete)
        assert anonymous.returncode == 2 and "deleted" not in anonymous.stderr, anonymous.stderr
        assert f"game {g_delete} is not readable with these credentials (no credentials)" in anonymous.stderr


def test_a_forged_checkpoint_and_a_rebuilt_tree_are_caught_and_two_monitors_see_the_split_view(
        attacked: dict[str, Any]) -> None:
    url, tmp = attacked["url"], attacked["tmp"]
    store = PostgresEventStore(url, migrations_dir=MIGRATIONS)
    latest = store.log_checkpoint()
    assert latest is not None
    # The operator without the key: a checkpoint of a larger tree, signed by a key of the same name.
    forger = Signer.generate(LOG.name)
    forged = Checkpoint(LOG.name, latest.tree_size + 1, b"\x07" * 32).sign(forger)
    superuser(url, ("INSERT INTO log_checkpoints VALUES (%s, %s, %s, now())",
                    (latest.tree_size + 1, b"\x07" * 32, forged)))
    with served(url) as server:
        out = monitor(attacked, server, "a.cp")
        assert out.returncode == 1 and "the checkpoint served by" in out.stderr
        assert "does not verify: no signature by a trusted key" in out.stderr, out.stderr
    superuser(url, ("DELETE FROM log_checkpoints WHERE tree_size = %s", (latest.tree_size + 1,)))

    # The operator with the key rebuilds the tree without the rewritten game's old head (its new head instead),
    # and shows the rebuilt log to a monitor that never saw it before.
    superuser(url, ("DELETE FROM log_nodes", ()), ("DELETE FROM log_checkpoints", ()), ("DELETE FROM log_leaves", ()),
              ("INSERT INTO log_leaves (game_id, version, head_hash, queued_at) SELECT game_id, version, hash,"
               " created_at FROM events WHERE type = 'game_ended' ORDER BY game_id", ()))
    with served(url) as server:
        wait_for_sequencer(store)
        rebuilt = store.log_checkpoint()
        assert rebuilt is not None
        out = monitor(attacked, server, "a.cp")
        assert out.returncode == 1 and "INCONSISTENT" in out.stderr, out.stderr
        assert "the log forked" in out.stderr or "the log shrank" in out.stderr, out.stderr
        fresh = monitor(attacked, server, "b.cp")  # monitor B, first run: trusts what it is shown
        assert fresh.returncode == 0, fresh.stderr
        cmp = cli("compare", str(tmp / "a.cp"), str(tmp / "b.cp"), "--key", LOG.verifier().vkey(),
                  "--url", base(server))
        assert cmp.returncode == 1 and "split view" in cmp.stderr, cmp.stderr
        if rebuilt.tree_size == latest.tree_size:
            assert "the log signed two different trees of size" in cmp.stderr or "forked" in cmp.stderr
    store.close()


def test_a_sequencer_killed_mid_batch_loses_and_duplicates_nothing(
        throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]]) -> None:
    """``python -m torres_game sequence`` SIGKILLed in the middle of a batch, four times, then restarted: every
    queued leaf gets exactly one index, and every checkpoint published before a kill is a prefix of the final tree.

    Mid-batch by construction, not by luck: the test holds a SHARE lock on ``log_checkpoints``, so a batch
    indexes its leaves and writes its nodes, then waits to insert its checkpoint; the kill lands while
    PostgreSQL shows it blocked by the test's lock. (Catching a free-running batch open by polling missed under
    load: a backlog drains in back-to-back batches of milliseconds.) The first sequencer publishes a first
    tranche's checkpoints before its kill; the others are killed in their first batch."""
    with throwaway_database("torres_log_kill") as url:
        store = PostgresEventStore(url, migrations_dir=MIGRATIONS)
        store.migrate()
        first, total = 1200, 6000

        def queue(start: int, end: int) -> None:  # queued heads, as game_ended's trigger writes them
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("INSERT INTO log_leaves (game_id, version, head_hash, queued_at)"
                             " SELECT 'g-' || i, 40 + i %% 9, encode(sha256(i::text::bytea), 'hex'), now()"
                             " FROM generate_series(%s::int, %s::int) i", (start, end))

        env = {**os.environ, "DATABASE_URL": f"{url}?application_name=torres-seq-kill",
               "TORRES_LOG_SIGNING_KEY": LOG.skey(), "TORRES_LOG_BATCH": "300", "TORRES_LOG_INTERVAL": "0.05",
               "TORRES_AUTO_MIGRATE": "0",
               "TORRES_MIGRATIONS_DIR": str(MIGRATIONS), "LOG_LEVEL": "WARNING", "TORRES_API_KEY": API_KEY,
               "TORRES_ADMIN_KEY": ADMIN_KEY}

        def sequencer() -> subprocess.Popen[bytes]:
            return subprocess.Popen([sys.executable, "-m", "torres_game", "sequence"], env=env, cwd=ROOT,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        published: dict[int, bytes] = {}
        kills = 0
        queue(1, first)
        with psycopg.connect(url, autocommit=True) as watch, psycopg.connect(url) as holder:
            for round_ in range(4):
                if round_ > 0:
                    holder.execute("LOCK TABLE log_checkpoints IN SHARE MODE")
                process = sequencer()
                if round_ == 0:  # the first tranche integrated and published, then a batch of the rest caught
                    wait_until(lambda: (cp := store.log_checkpoint()) is not None and cp.tree_size == first,
                               timeout=60, what="the first tranche's checkpoint")
                    holder.execute("LOCK TABLE log_checkpoints IN SHARE MODE")
                    queue(first + 1, total)
                wait_until(lambda: watch.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'torres-seq-kill'"
                    " AND %s = ANY(pg_blocking_pids(pid))", (holder.info.backend_pid,)).fetchone() == (1,),
                    timeout=60, what="a batch waiting to insert its checkpoint")
                for cp in _checkpoints(url):
                    published[cp.size] = cp.root
                process.send_signal(signal.SIGKILL)
                process.wait(10)
                kills += 1
                holder.rollback()  # the killed batch's backend gets the lock, then finds its client gone: rollback
            process = sequencer()
            try:
                wait_for_sequencer(store, timeout=120)
            finally:
                process.send_signal(signal.SIGTERM)
                process.wait(30)
        with psycopg.connect(url) as conn:
            rows = conn.execute("SELECT leaf_index, game_id, version, head_hash FROM log_leaves ORDER BY leaf_index"
                                ).fetchall()
        assert [r[0] for r in rows] == list(range(total)), "every leaf integrated exactly once, no gap"
        assert len({r[1] for r in rows}) == total
        leaves = [head_text(r[1], r[2], r[3], "over").encode() for r in rows]
        final = _checkpoints(url)
        assert final[-1].size == total and final[-1].root == merkle.root(leaves)
        for cp in final:  # every checkpoint ever signed is a prefix of the final tree ...
            assert merkle.root(leaves[:cp.size]) == cp.root
        for size, root in published.items():  # ... including each one published before a kill
            assert root == next(cp.root for cp in final if cp.size == size)
        assert kills == 4 and max(published) == first
        store.close()


def _checkpoints(url: str) -> list[Checkpoint]:
    with psycopg.connect(url) as conn:
        notes = [r[0] for r in conn.execute("SELECT note FROM log_checkpoints ORDER BY tree_size").fetchall()]
    return [open_checkpoint(note, [LOG.verifier()])[0] for note in notes]
