"""Tenants files for the game-service tests, written by the real keys CLI (``python -m torres_service.keys``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from torres_service import keys as keys_cli

ROOT = Path(__file__).resolve().parents[2]


def cli(path: Path, *args: str) -> dict[str, Any]:
    """One CLI command on the tenants file, in this process (fast): what it prints, as JSON."""
    return keys_cli.run(keys_cli.parser().parse_args(["--file", str(path), *args]))


def cli_process(path: Path, *args: str) -> dict[str, Any]:
    """One CLI command as an operator runs it: ``python -m torres_service.keys``, a process of its own."""
    done = subprocess.run([sys.executable, "-m", "torres_service.keys", "--file", str(path), *args],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout)


def add_key(path: Path, name: str, scopes: str, *, internal: bool = False) -> str:
    return cli(path, "add-key", name, "--scopes", scopes, *(["--internal"] if internal else []))["key"]


def two_tenants(path: Path) -> dict[str, str]:
    """Tenants ``alpha`` and ``beta`` and the internal services; returns the keys by role:

    * ``a``: alpha, every tenant scope; ``a_games``: alpha, ``games`` only; ``a_mm``: alpha, ``matchmaking`` only
      (no game scope at all); ``a_ai``: alpha, ``ai`` only;
    * ``b``: beta, every tenant scope;
    * ``matcher`` (internal ``games``), ``ratings`` (internal ``notifications``), ``ai`` (internal ``ai``).
    """
    cli(path, "add-tenant", "alpha")
    cli(path, "add-tenant", "beta")
    return {
        "a": add_key(path, "alpha", "games,admin,ai,matchmaking"),
        "a_games": add_key(path, "alpha", "games"),
        "a_mm": add_key(path, "alpha", "matchmaking"),
        "a_ai": add_key(path, "alpha", "ai"),
        "b": add_key(path, "beta", "games,admin,ai,matchmaking"),
        "matcher": add_key(path, "matcher", "games", internal=True),
        "ratings": add_key(path, "ratings", "notifications", internal=True),
        "ai": add_key(path, "ai-worker", "ai", internal=True),
    }
