"""infra/compose.yaml: valid against the Compose Specification's schema, and the whole stack wired as documented."""

from __future__ import annotations

import copy
import json
import subprocess
from typing import Any

import jsonschema
import pytest
import yaml

from .conftest import ROOT, compose

SCHEMA = json.loads((ROOT / "infra" / "schemas" / "compose-spec.json").read_text())


def validate(doc: dict[str, Any]) -> None:
    jsonschema.Draft7Validator(SCHEMA).validate(doc)  # the schema declares draft-07


def test_compose_file_is_valid_against_the_compose_spec() -> None:
    validate(compose())


def test_the_schema_does_reject_a_mistake() -> None:
    doc = copy.deepcopy(compose())
    doc["services"]["game"]["depends_on"]["postgres"]["condition"] = "service_ready"  # not a condition
    with pytest.raises(jsonschema.ValidationError):
        validate(doc)
    doc = copy.deepcopy(compose())
    doc["services"]["game"]["healthcheck"]["intervall"] = "5s"
    with pytest.raises(jsonschema.ValidationError):
        validate(doc)


def test_the_whole_stack_is_there() -> None:
    services = compose()["services"]
    assert set(services) == {"postgres", "redis", "migrate", "game", "sequencer", "ai-worker", "ai-sweeper",
                             "webhooks", "matchmaking", "matcher", "ratings"}
    assert services["game"]["deploy"]["replicas"] == 2
    assert services["ai-worker"]["deploy"]["replicas"] >= 2
    assert services["migrate"]["restart"] == "no"
    for name in ("game", "sequencer", "ai-worker", "ai-sweeper", "webhooks"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert services[name]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name, service in services.items():
        if name not in ("migrate", "ai-sweeper", "sequencer"):
            assert "test" in service["healthcheck"], name
        if name not in ("postgres", "redis"):
            assert service["read_only"] is True and service["image"] == "torres:local"


def test_secrets_come_from_an_uncommitted_env_file() -> None:
    services = compose()["services"]
    for name, service in services.items():
        if name == "sequencer":  # and the log's signing key, which no other service reads (key custody)
            assert service["env_file"] == [{"path": "../.env", "required": True},
                                           {"path": "../log-key.env", "required": True}]
        elif name != "redis":
            assert service["env_file"] == [{"path": "../.env", "required": True}], name
        for value in (service.get("environment") or {}).values():
            assert "KEY" not in str(value) and "PASSWORD" not in str(value)
    tracked = subprocess.run(["git", "ls-files", ".env"], cwd=ROOT, capture_output=True, text=True).stdout
    assert tracked == ""
    assert {".env", "log-key.env"} <= set((ROOT / ".gitignore").read_text().split())
    assert services["game"]["environment"]["TORRES_LOG_INTERVAL"] == "0"  # the web replicas sign nothing
    example = (ROOT / ".env.example").read_text()
    for key in ("POSTGRES_PASSWORD=", "DATABASE_URL=", "TORRES_API_KEY=", "TORRES_ADMIN_KEY="):
        assert key in example
    assert "TORRES_API_KEY=\n" in example and "POSTGRES_PASSWORD=\n" in example  # no value committed


def test_the_ai_worker_metrics_port_is_wired() -> None:
    worker = compose()["services"]["ai-worker"]
    assert worker["environment"]["TORRES_AI_METRICS_PORT"] == "9400"
    assert worker["environment"]["HEALTHCHECK_URL"].endswith(":9400/metrics")


def test_the_tenants_overlay_is_valid_and_wired() -> None:
    """infra/compose.tenants.yaml merged over the base as compose merges it (mappings merged, env_file
    replaced): still valid; the HTTP services read the tenants file from a read-only directory mount (the CLI's
    rename would never reach a mount of the file itself), the matcher and the ratings consumer their own keys."""
    overlay = yaml.safe_load((ROOT / "infra" / "compose.tenants.yaml").read_text())
    merged = copy.deepcopy(compose())
    for name, service in overlay["services"].items():
        base = merged["services"][name]
        base["environment"] = {**base.get("environment", {}), **service.get("environment", {})}
        for key in ("volumes", "env_file"):
            if key in service:
                base[key] = service[key]
    validate(merged)
    for name in ("game", "matchmaking", "webhooks"):
        service = merged["services"][name]
        (mount,) = service["volumes"]
        assert mount["read_only"] is True and mount["source"] == "../tenants"
        assert service["environment"]["TORRES_TENANTS_FILE"] == f"{mount['target']}/tenants.json"
    files = {name: merged["services"][name]["env_file"][-1]["path"] for name in ("matcher", "ratings")}
    assert files == {"matcher": "../tenants/matcher.env", "ratings": "../tenants/ratings.env"}
    assert "/tenants/" in (ROOT / ".gitignore").read_text().split()  # keys and token secrets are never committed
