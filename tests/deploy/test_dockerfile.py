"""The Dockerfile: hadolint-clean, multi-stage, non-root, hashed lock, a health check; a tight build context."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, tool

DOCKERFILE = (ROOT / "Dockerfile").read_text()


def hadolint(path: Path) -> subprocess.CompletedProcess[str]:
    exe = tool("hadolint", Path(sys.executable).parent / "hadolint")
    return subprocess.run([exe, "--no-color", str(path)], capture_output=True, text=True)


def stages() -> list[str]:
    return re.split(r"(?m)^FROM ", DOCKERFILE)[1:]


def test_hadolint_passes() -> None:
    result = hadolint(ROOT / "Dockerfile")
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_does_fail_on_a_bad_dockerfile(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN apt-get update && apt-get install curl\nRUN cd /src && pip install .\n")
    result = hadolint(bad)
    assert result.returncode != 0
    assert "DL3007" in result.stdout  # the `latest` tag


def test_multi_stage_with_build_tools_only_in_the_build_stage() -> None:
    build, runtime = stages()
    assert "build-essential" in build and "--require-hashes -r requirements-runtime.lock" in build
    assert re.search(r"(?m)^ARG PYTHON_IMAGE=python:3\.\d+-slim", DOCKERFILE)
    assert runtime.startswith("${PYTHON_IMAGE} AS runtime") and build.startswith("${PYTHON_IMAGE} AS build")
    for tool_name in ("build-essential", "gcc", "apt-get install", "pip install"):
        assert tool_name not in runtime
    assert "COPY --from=build /opt/venv /opt/venv" in runtime


def test_runtime_runs_as_a_non_root_user_with_a_health_check() -> None:
    runtime = stages()[-1]
    users = re.findall(r"(?m)^USER (\S+)", runtime)
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert re.search(r"(?m)^HEALTHCHECK .*\n?.*torres_service.healthcheck", runtime)
    assert re.search(r'(?m)^CMD \["gunicorn", "-c", "infra/gunicorn.conf.py", "torres_game.wsgi:app"\]', runtime)


def test_every_copied_path_exists_and_is_in_the_build_context() -> None:
    ignore = (ROOT / ".dockerignore").read_text().split()
    allowed = [line[1:].rstrip("/") for line in ignore if line.startswith("!")]
    assert ignore[ignore.index("*") if "*" in ignore else -1] == "*", ".dockerignore must start from nothing"
    for src in re.findall(r"(?m)^COPY (?!--from)(\S+)", DOCKERFILE):
        assert (ROOT / src).exists(), src
        assert any(src == a or src.startswith(a + "/") for a in allowed), f"{src} is excluded by .dockerignore"
    for secret in (".env", ".venv", "data", ".git"):
        assert not any(secret == a or secret.startswith(a + "/") for a in allowed)


def test_the_image_compiles_the_rules_engine_and_installs_it_with_the_package() -> None:
    """The compiled engine is package data of torres_rules (tests/rules/test_loader.py): built in the build stage
    before the package is installed, never taken from the checkout that sends the build context."""
    build = stages()[0]
    assert build.index("python shared/build_compiled.py --require") < build.index("pip wheel --no-deps")
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert "shared/build" in ignored and "shared/torres_rules/_compiled" in ignored
