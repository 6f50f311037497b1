"""The terminal client on a real game service (embedded SQLite, served over HTTP on loopback): a person plays
a whole game against the service's AI seat."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from serving import served
from werkzeug.serving import make_server

from torres_game.app import create_app
from torres_game.config import Config
from torres_terminal.__main__ import play
from torres_terminal.games import RemoteGame

from .test_terminal import scripted

MIGRATIONS = Path(__file__).resolve().parents[2] / "infra" / "migrations"


@pytest.fixture
def game_service(tmp_path: Path) -> Iterator[str]:
    config = Config(database_url=f"sqlite:///{tmp_path / 'games.sqlite3'}", api_key="key", admin_key="admin",
                    ai_driver="thread", migrations_dir=MIGRATIONS, log_level="WARNING")
    app = create_app(config)
    try:
        with served(make_server("127.0.0.1", 0, app, threaded=True)) as url:
            yield url
    finally:
        app.extensions["torres_game"].close()  # its AI, enforcer and sequencer threads stop with it


def test_a_person_plays_a_whole_game_on_the_game_service(game_service: str) -> None:
    said: list[str] = []
    game = RemoteGame(game_service, "key", players=2, edition="yucata", master=False, seat=1, level="easy")
    view = play(game, ask=scripted(3), say=said.append)
    assert view["stage"] == "over"
    text = "\n".join(said)
    assert "game over" in text and "illegal:" in text
    # the AI seat's moves and the scorings, read from the service's events and replay, in the web client's words
    said_once = re.sub(r"\n {2,}", " ", text)
    assert re.search(r"Seat 0 \(a\): places a first knight on [A-H][1-8]", said_once), text[:2000]
    assert re.search(r"Seat 0 \(a\): [^\n]*ends the turn\.", said_once)
    for phase in (1, 2, 3):
        assert f"Scoring of phase {phase}:" in text
    assert re.search(r"Seat 1 \(b, you\): [^\n]* → \+\d+ \(score \d+\)", said_once)
    assert re.search(r"\n(You win|Seat 0 wins) with \d+ points?\.$", text), text[-300:]


def test_a_wrong_service_key_is_reported(game_service: str) -> None:
    with pytest.raises(RuntimeError, match=r"40[13]"):
        RemoteGame(game_service, "wrong", players=2, edition="yucata", master=False, seat=0, level="easy")
