"""Static checks of what production runs: the Dockerfile, compose and the Kubernetes manifests.

Nothing here builds or starts a container (no Docker engine on these machines): the files are linted and
validated against the published schemas, offline. A missing tool skips with the reason; under CI
(TORRES_REQUIRE_SERVICES=1) the "not reachable" wording turns such a skip into a failure.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
OVERLAYS = ("dev", "prod")


def tool(name: str, *candidates: Path) -> str:
    for path in candidates:
        if path.exists():
            return str(path)
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} not reachable on PATH (make test installs the Python tools, the machine kubectl)")
    return found


def render(overlay: str) -> list[dict[str, Any]]:
    """`kubectl kustomize k8s/overlays/<overlay>` as a list of objects."""
    kubectl = tool("kubectl")
    out = subprocess.run([kubectl, "kustomize", str(ROOT / "k8s" / "overlays" / overlay)],
                         check=True, capture_output=True, text=True).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


@pytest.fixture(scope="session", params=OVERLAYS)
def rendered(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]]]:
    return request.param, render(request.param)


def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "infra" / "compose.yaml").read_text())
