"""The one implementation of signed webhooks (torres_service.webhooks, issue 29): what the game service's webhooks
and the matchmaker's callbacks send, and what a receiver checks; and the tenants file's webhook settings."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest

from torres_service import keys as keys_cli
from torres_service import webhooks
from torres_service.principals import Registries, Registry

SECRET = "a-portal-chosen-webhook-secret"


def test_a_signed_attempt_verifies_and_anything_changed_does_not() -> None:
    body = b'{"id": "g.1.game.created", "type": "game.created"}'
    headers = webhooks.signed_headers(SECRET, body, "g.1.game.created", now=1_800_000_000)
    assert headers["X-Torres-Delivery"] == "g.1.game.created" and headers["X-Torres-Timestamp"] == "1800000000"
    expected = hmac.new(SECRET.encode(), b"1800000000." + body, hashlib.sha256).hexdigest()
    assert headers["X-Torres-Signature"] == f"sha256={expected}"  # the documented construction, exactly
    assert webhooks.verify(SECRET, headers, body, now=1_800_000_100)
    lower = {k.lower(): v for k, v in headers.items()}  # what a framework may hand over
    assert webhooks.verify(SECRET, lower, body, now=1_800_000_100)
    assert not webhooks.verify("another-tenants-secret", headers, body, now=1_800_000_100)
    assert not webhooks.verify(SECRET, headers, body + b" ", now=1_800_000_100)
    assert not webhooks.verify(SECRET, {**headers, "X-Torres-Timestamp": "1800000001"}, body, now=1_800_000_100)
    assert not webhooks.verify(SECRET, headers, body, now=1_800_000_000 + 301)  # a replay past the tolerance
    assert webhooks.verify(SECRET, headers, body, tolerance=600, now=1_800_000_000 + 301)
    assert not webhooks.verify(SECRET, {}, body)
    assert not webhooks.verify(SECRET, {**headers, "X-Torres-Timestamp": "-5"}, body, now=1_800_000_100)


def test_the_back_off_doubles_up_to_its_cap() -> None:
    assert [webhooks.backoff(n) for n in range(1, 12)] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]


def test_the_keys_cli_sets_a_webhook_prints_its_secret_once_and_lists_none(tmp_path: Path) -> None:
    path = tmp_path / "tenants.json"

    def cli(*args: str) -> dict:
        return keys_cli.run(keys_cli.parser().parse_args(["--file", str(path), *args]))

    cli("add-tenant", "portal")
    made = cli("set-webhook", "portal", "--url", "https://portal.example/hooks")
    assert made["url"] == "https://portal.example/hooks" and len(made["secret"]) >= 32
    tenant = Registries(path=str(path)).current.tenant("portal")
    assert tenant is not None and tenant.webhook is not None and tenant.webhook.secret == made["secret"]
    assert "secret" not in json.dumps(cli("list"))
    assert "secret" not in cli("set-webhook", "portal", "--url", "https://portal.example/v2", "--secret", SECRET)
    assert Registry.from_json(json.loads(path.read_text())).tenants["portal"].webhook.secret == SECRET  # type: ignore[union-attr]
    with pytest.raises(SystemExit):
        cli("set-webhook", "portal", "--url", "ftp://portal.example/", "--secret", SECRET)
    with pytest.raises(SystemExit):
        cli("set-webhook", "portal", "--url", "https://portal.example/", "--secret", "short")
    cli("remove-webhook", "portal")
    assert Registry.from_json(json.loads(path.read_text())).tenants["portal"].webhook is None


def test_the_single_key_default_takes_its_webhook_from_two_variables() -> None:
    registry = Registries.from_env({"TORRES_WEBHOOK_URL": "http://127.0.0.1:9/hooks", "TORRES_WEBHOOK_SECRET": SECRET},
                                   api_key="k").current
    tenant = registry.tenant("default")
    assert tenant is not None and tenant.webhook is not None and tenant.webhook.url == "http://127.0.0.1:9/hooks"
    assert Registries.from_env({}, api_key="k").current.tenant("default").webhook is None  # type: ignore[union-attr]
