"""The README's commands work as a new user types them: its shell blocks use only variables they define, run the
project's modules with the checkout's Python (`.venv/bin/python`; a bare `python` has none of them), and the audit
step -- the record checked offline against the keys the service publishes -- runs word for word against `make run`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
from stack.launcher import local_stack

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```sh\n(.*?)```", README, re.S)


def commands() -> list[str]:
    """The README's shell lines, comments removed, in order."""
    return [line.split(" #")[0] for block in BLOCKS for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_every_variable_is_defined_before_it_is_used() -> None:
    defined: set[str] = set()
    undefined = []
    for line in commands():
        used = re.findall(r"\$\{?([A-Za-z_]\w*)", line)
        undefined += [f"${name} in: {line.strip()}" for name in used if name not in defined]
        defined |= set(re.findall(r"(?:^|[\s;(])([A-Za-z_]\w*)=", line))
    assert undefined == []


def test_the_projects_modules_run_with_the_checkouts_python() -> None:
    bare = [line.strip() for line in commands() if re.search(r"(?<![\w/.])python3?\s", line)]
    assert bare == []
    assert BLOCKS, "the README has shell blocks"


def test_the_audit_step_runs_word_for_word(tmp_path: Path) -> None:
    step = [line for line in commands() if "torres-audit" in line]
    assert len(step) == 2 and "torres_audit verify" in step[1], step
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))  # the checkout's .venv, where the step runs
    with local_stack(tmp_path / "data") as stack:
        base, key = stack["game"], stack["key"]
        created = httpx.post(f"{base}/v1/games", headers={"X-API-Key": key}, timeout=15, json={
            "seats": [{"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "easy"}]})
        assert created.status_code == 201, created.text
        gid = created.json()["game_id"]
        deadline = time.monotonic() + 120
        while httpx.get(f"{base}/v1/games/{gid}", timeout=15).json()["status"] != "over":
            assert time.monotonic() < deadline, "the AI game did not end"
            time.sleep(0.5)
        env = {**os.environ, "B": base, "KEY": key, "GID": gid}
        ran = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(step)], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.rstrip().endswith("VERIFIED"), ran.stdout
