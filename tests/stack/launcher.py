"""`make run` (infra/local_stack.py) as a test fixture: on free loopback ports, embedded defaults, stopped after."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from serving import free_port

ROOT = Path(__file__).resolve().parents[2]
#: Variables that would switch the launcher's children to servers or change what it prints.
SCALE_OUT = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "TORRES_MATCHMAKING_URL", "TORRES_CORS_ORIGINS")



def launcher_command(game_port: int, mm_port: int, data_dir: Path) -> list[str]:
    """What `make run ARGS="--no-play ..."` runs."""
    return [sys.executable, str(ROOT / "infra" / "local_stack.py"), "--no-play", "--game-port", str(game_port),
            "--matchmaking-port", str(mm_port), "--data-dir", str(data_dir)]


def clean_env(**extra_env: str) -> dict[str, str]:
    """This environment without the variables that switch the launcher to servers, plus ``extra_env``."""
    return {k: v for k, v in os.environ.items() if k not in SCALE_OUT} | extra_env


@contextlib.contextmanager
def local_stack(data_dir: Path, **extra_env: str) -> Iterator[dict[str, str]]:
    """Start the launcher, wait for its banner, yield the addresses, the service key and the banner."""
    game_port, mm_port = free_port(), free_port()
    process = subprocess.Popen(
        launcher_command(game_port, mm_port, data_dir), env=clean_env(**extra_env),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    deadline = time.monotonic() + 60
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if "play in another terminal" in line:
            break
    text = "".join(lines)
    key = re.search(r"service key\s+(\S+)", text)
    try:
        assert key, f"launcher did not report the stack:\n{text}"
        yield {"game": f"http://127.0.0.1:{game_port}", "matchmaking": f"http://127.0.0.1:{mm_port}",
               "key": key.group(1), "banner": text}
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
