"""The terminal game as a person meets it: ``python -m torres_terminal`` in a real terminal (a pty of 80 columns
and 24 rows), typed into and read from like a screen. It must say what the other seats did and each scoring, in the
web client's words, explain its board, number stacks from 1, fit 80 columns, and end with the result in words."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = 80


class Terminal:
    """A child process on a pty of COLUMNS x 24; ``read_until`` collects its output, ``type`` sends a line."""

    def __init__(self, *args: str) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLUMNS, 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        env |= {"TERM": "xterm", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}
        self.process = subprocess.Popen([sys.executable, "-m", "torres_terminal", *args], stdin=slave,
                                        stdout=slave, stderr=slave, env=env, close_fds=True, start_new_session=True)
        os.close(slave)
        self.screen = ""

    def read_until(self, *endings: str, seconds: float = 60) -> str:
        """Read until the output ends with one of ``endings`` (or the child exits); return what was new."""
        start, deadline = len(self.screen), time.monotonic() + seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                self.screen += chunk.decode("utf-8", errors="replace").replace("\r\n", "\n")
                if self.screen.rstrip(" ").endswith(tuple(e.rstrip(" ") for e in endings)):
                    break
            elif self.process.poll() is not None:
                break
        return self.screen[start:]

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=10)
        os.close(self.master)


def pick(screen: str) -> str:
    """What this player types: the end of the turn when it is listed, else the first listed action."""
    listed = screen[screen.rindex("your actions"):]
    ending = re.search(r"(\d+)\) End the turn", listed)
    return ending.group(1) if ending else "1"


@pytest.fixture
def terminal() -> list[Terminal]:
    opened: list[Terminal] = []
    yield opened
    for t in opened:
        t.close()


def test_a_whole_game_in_an_80_column_terminal(terminal: list[Terminal]) -> None:
    term = Terminal("--players", "2", "--seed", "8", "--seat", "1")
    terminal.append(term)
    screen = term.read_until("your move> ")
    assert "How to read the board" in screen and "K = king" in screen and "> marks the seat to move" in screen
    assert "bots playing random legal moves" in screen
    term.type("help")
    assert "How to play" in term.read_until("your move> ")
    for _ in range(200):
        if term.process.poll() is not None or "Final score" in term.screen:
            break
        term.type(pick(term.screen))
        term.read_until("your move> ", "points.", "point.")
    term.read_until("points.", "point.", seconds=5)
    text = term.screen
    assert "Final score:" in text, text[-2000:]
    said = re.sub(r"\n {2,}", " ", text)  # a sentence wrapped onto indented lines, read as one
    # the other seat's moves and every scoring, in the web client's words
    assert re.search(r"Seat 0 \(a\): places a first knight on [A-H][1-8]", said), text[:3000]
    assert re.search(r"Seat 0 \(a\): [^\n]*ends the turn\.", said), text[:6000]
    assert re.search(r"Seat 0 \(a\): [^\n]*(builds a block on [A-H][1-8] from stack [1-4]|moves a knight "
                     r"[A-H][1-8] → [A-H][1-8])", said)
    for phase in (1, 2, 3):
        assert f"Scoring of phase {phase}:" in text
    assert re.search(r"Seat 1 \(b, you\): [^\n]*(castle of \d+ squares? at [A-H][1-8] × level \d+ = \d+|no knight in "
                     r"a castle)[^\n]* → \+\d+ \(score \d+\)", said)
    # the result in words, not a list of numbers
    assert re.search(r"\n(You win|Seat 0 wins) with \d+ points?\.", text), text[-600:]
    assert "game over. scores" not in text and "winner: seat" not in text
    # stacks count from 1 as on the web client's buttons
    assert "from stack 1" in text and not re.search(r"stack 0\b", text)
    # nothing wraps in 80 columns
    # (the rules engine's own notice of a stale compiled build, on stderr, is the checkout's, not the game's)
    wide = [line for line in text.split("\n") if len(line) >= COLUMNS and not line.startswith("torres_rules: ")]
    assert wide == [], wide[:5]


def test_help_describes_the_opponents_levels() -> None:
    shown = subprocess.run([sys.executable, "-m", "torres_terminal", "--help"], capture_output=True, text=True,
                           env={**os.environ, "COLUMNS": str(COLUMNS)}, check=True).stdout
    text = " ".join(shown.split())
    assert "easy: random legal moves" in text and "medium:" in text and "hard:" in text, shown
    assert "bots that play random legal moves" in text, shown
