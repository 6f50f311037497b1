"""Regenerate the typed SDKs from the services' OpenAPI documents (`make sdk`; docs/sdk.md).

    python sdk/generate.py            write sdk/openapi/*.json, sdk/python/torres_*_client, sdk/typescript/src/*.gen.ts
    python sdk/generate.py --check    write nothing; list what differs from the committed files (exit 1 if any)

Three steps, each deterministic:

1. **The documents.** Each service's ``/openapi.json`` as its application factory builds it, on a default
   configuration (no tenants file, embedded stores, no dev token issuer; the matchmaker with a webhook secret, so
   that tickets may carry a ``callback_url``), in a subprocess whose environment holds no setting, so that a
   developer's variables cannot change it. Written to ``sdk/openapi/{game,matchmaking}.json``.
2. **Python**: ``openapi-python-client`` (pinned in requirements.lock) turns each document into a package,
   ``sdk/python/torres_game_client`` and ``sdk/python/torres_matchmaking_client``, installed by ``make install``
   from ``sdk/python/pyproject.toml``.
3. **TypeScript**: ``openapi-typescript`` (pinned in sdk/typescript/package-lock.json, ``npm ci``) turns each
   into the ``paths``/``components`` types ``sdk/typescript/src/{game,matchmaking}.gen.ts`` that the
   ``openapi-fetch`` clients of ``sdk/typescript/src/index.ts`` are typed by.

The SDKs are generated from the committed documents, never from a running server; tests/sdk checks both links:
the documents equal what the services build, and the SDKs equal what the documents generate.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SDK = ROOT / "sdk"
DOCUMENTS = SDK / "openapi"
PYTHON = SDK / "python"
TYPESCRIPT = SDK / "typescript"
#: service -> the Python package generated from its document
PACKAGES = {"game": "torres_game_client", "matchmaking": "torres_matchmaking_client"}

# Run in a clean subprocess (step 1): prints {"game": {...}, "matchmaking": {...}}.
_EXPORT = r"""
import json, logging, sys, tempfile
from pathlib import Path

logging.disable(logging.CRITICAL)
from torres_game.app import create_app as game_app
from torres_game.config import Config as GameConfig
from torres_matchmaking.app import create_app as matchmaking_app
from torres_matchmaking.config import Config as MatchmakingConfig

documents = {}
with tempfile.TemporaryDirectory() as folder:
    config = GameConfig.from_env({"TORRES_DATA_DIR": folder}).with_(
        api_key="k", admin_key="a", ai_driver="none", log_interval=0.0, enforcer_interval=0.0,
        migrations_dir=Path(sys.argv[1]) / "infra" / "migrations", log_level="CRITICAL")
    app = game_app(config)
    documents["game"] = app.test_client().get("/openapi.json").get_json()
    app.extensions["torres_game"].close()
config = MatchmakingConfig.from_env({}).with_(api_key="k", webhook_secret="s", log_level="CRITICAL")
documents["matchmaking"] = matchmaking_app(config).test_client().get("/openapi.json").get_json()
sys.stdout.write(json.dumps(documents))
"""


def _run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end, its output captured; its output and errors as the failure when it fails."""
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if done.returncode:
        raise SystemExit(f"{' '.join(command[:3])} ... failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done  # type: ignore[no-any-return]


def export_documents(out: Path) -> None:
    """Step 1: each service's OpenAPI document, as ``out/<service>.json``."""
    env = {name: os.environ[name] for name in ("PATH", "HOME", "LANG", "SYSTEMROOT") if name in os.environ}
    env["TORRES_RULES_PURE"] = "1"  # the documents do not depend on the engine's build; skip loading it
    exported = _run([sys.executable, "-c", _EXPORT, str(ROOT)], env=env, cwd=ROOT).stdout
    out.mkdir(parents=True, exist_ok=True)
    for service, document in json.loads(exported).items():
        (out / f"{service}.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def generate_python(documents: Path, out: Path) -> None:
    """Step 2: ``out/<package>/`` for each document, by openapi-python-client (formatted by its ruff run). A
    warning of the generator fails the step: it means a part of the document (an endpoint, a schema) it skipped,
    and an SDK silently missing an endpoint is worse than none."""
    out.mkdir(parents=True, exist_ok=True)
    generator = Path(sys.executable).with_name("openapi-python-client")
    for service, package in PACKAGES.items():
        with tempfile.TemporaryDirectory() as scratch:
            config = Path(scratch) / "config.json"
            # the pinned ruff, on its defaults (--isolated: no pyproject.toml of ours, no user configuration)
            ruff = f"{Path(sys.executable).with_name('ruff')} {{}} --isolated --no-cache"
            config.write_text(json.dumps({"project_name_override": package, "package_name_override": package,
                                          "post_hooks": [ruff.format("check --fix-only") + " .",
                                                         ruff.format("format") + " ."]}))
            target = Path(scratch) / package
            done = _run([str(generator), "generate", "--path", str(documents / f"{service}.json"), "--config",
                         str(config), "--meta", "none", "--output-path", str(target)], cwd=scratch)
            said = done.stdout + done.stderr
            if "warning" in said.lower():
                raise SystemExit(f"openapi-python-client skipped part of {service}.json:\n{said}")
            shutil.rmtree(out / package, ignore_errors=True)
            shutil.copytree(target, out / package)


def generate_typescript(documents: Path, out: Path) -> None:
    """Step 3: ``out/<service>.gen.ts`` for each document, by openapi-typescript from sdk/typescript/node_modules
    (``npm ci --prefix sdk/typescript``)."""
    cli = TYPESCRIPT / "node_modules" / "openapi-typescript" / "bin" / "cli.js"
    if not cli.exists():
        raise SystemExit(f"{cli} is missing: run `npm ci --prefix {TYPESCRIPT.relative_to(ROOT)}` (make sdk does)")
    out.mkdir(parents=True, exist_ok=True)
    for service in PACKAGES:
        # --default-non-nullable=false: a field with a default stays optional, so a request may leave it out
        _run(["node", str(cli), str(documents / f"{service}.json"), "--default-non-nullable=false",
              "--output", str(out / f"{service}.gen.ts")], cwd=TYPESCRIPT)


def generate(documents: Path, out: Path) -> None:
    """Steps 2 and 3 from ``documents``, into ``out`` laid out as ``sdk/`` is."""
    generate_python(documents, out / "python")
    generate_typescript(documents, out / "typescript" / "src")


def generated_files(sdk: Path) -> set[str]:
    """The generated files under ``sdk`` (relative): every file of each Python package, the TypeScript types."""
    files = {f"typescript/src/{service}.gen.ts" for service in PACKAGES}
    for package in PACKAGES.values():
        files |= {str(p.relative_to(sdk)) for p in (sdk / "python" / package).rglob("*")
                  if p.is_file() and not {"__pycache__", ".ruff_cache"} & set(p.parts)}
    return files


def differences(expected: Path, actual: Path, files: set[str]) -> list[str]:
    """The files (relative) that are missing from either tree or differ between them."""
    return sorted(f for f in files if not ((expected / f).is_file() and (actual / f).is_file()
                                           and filecmp.cmp(expected / f, actual / f, shallow=False)))


def stale_documents() -> list[str]:
    """The committed documents (``openapi/<service>.json``) that differ from what the services build now."""
    with tempfile.TemporaryDirectory() as scratch:
        export_documents(Path(scratch) / "openapi")
        return differences(Path(scratch), SDK, {f"openapi/{service}.json" for service in PACKAGES})


def stale_sdks(documents: Path = DOCUMENTS) -> list[str]:
    """The committed SDK files that differ from what ``documents`` generate (missing, extra or changed)."""
    with tempfile.TemporaryDirectory() as scratch:
        generate(documents, Path(scratch))
        return differences(Path(scratch), SDK, generated_files(Path(scratch)) | generated_files(SDK))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python sdk/generate.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming every committed file that regenerating would change")
    parser.add_argument("--documents", type=Path, default=None,
                        help="with --check: generate from these documents instead of the committed ones "
                             "(and skip the check of the documents against the services)")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_sdks(args.documents) if args.documents else stale_documents() + stale_sdks()
        for name in stale:
            print(f"stale: sdk/{name}")
        if stale:
            print("The committed SDKs do not match the OpenAPI documents: run `make sdk` and commit the result.")
        return 1 if stale else 0
    export_documents(DOCUMENTS)
    with tempfile.TemporaryDirectory() as scratch:  # generated aside, then moved in: a failed run changes nothing
        generate(DOCUMENTS, Path(scratch))
        for package in PACKAGES.values():
            shutil.rmtree(PYTHON / package, ignore_errors=True)
            shutil.copytree(Path(scratch) / "python" / package, PYTHON / package)
        for service in PACKAGES:
            shutil.copyfile(Path(scratch) / "typescript" / "src" / f"{service}.gen.ts",
                            TYPESCRIPT / "src" / f"{service}.gen.ts")
    print(f"regenerated the SDKs in {SDK.relative_to(ROOT)}/ from {DOCUMENTS.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
