"""A complete game against a real game service through the TypeScript SDK only (sdk/typescript: openapi-fetch
typed by the openapi-typescript types): sdk/typescript/test/play.ts, first checked by the TypeScript compiler
against the generated types, then run by Node.js (tsx). What it plays and checks is in the script."""

from __future__ import annotations

import json
import subprocess

import pytest
from game.conftest import API_KEY

from .conftest import TYPESCRIPT

pytestmark = pytest.mark.timeout(300)


def test_the_sdk_and_the_game_script_type_check(node: str) -> None:
    done = subprocess.run([node, "node_modules/typescript/bin/tsc", "--noEmit", "-p", "."], cwd=TYPESCRIPT,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_complete_game_through_the_typescript_sdk(node: str, game_server: str) -> None:
    done = subprocess.run([node, "node_modules/tsx/dist/cli.mjs", "test/play.ts", game_server, API_KEY],
                          cwd=TYPESCRIPT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    print(report)
    assert report["actions"] > 20 and len(report["scores"]) == 2
    assert all(count >= report["actions"] for count in report["streamed"])  # each seat saw every version
    assert report["analysed_turns"] >= 20
