"""``python -m torres_service.keys``: manage the tenants file (``TORRES_TENANTS_FILE``) that both services read.

A new key is printed once and stored only as its SHA-256 digest. The file is replaced atomically (written
beside it, then renamed), so a service re-reading it sees the old document or the new one, never half of one.
Rotation without downtime: ``add-key`` (both keys work), switch the portal over, ``revoke-key`` the old one;
for a player-token secret, ``rotate-secret`` (both verify), switch the portal's signing over, ``drop-old-secrets``.
A tenant's game webhooks: ``set-webhook NAME --url URL`` (a secret is generated and printed once unless
``--secret`` gives the portal's own), ``remove-webhook NAME``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import tempfile
from dataclasses import replace
from typing import Any

from .principals import (
    DEFAULT_AUDIENCE,
    INTERNAL_SCOPES,
    TENANT_SCOPES,
    TENANTS_FILE,
    ApiKey,
    PlayerTokens,
    Registry,
    Tenant,
    Webhook,
    key_digest,
    new_key,
)
from .settings import Process
from .webhooks import ALLOW_NETWORKS, allowed_networks, url_refusal

#: What this command reads of its environment (docs/settings.md).
PROCESS = Process("`python -m torres_service.keys`", (TENANTS_FILE, ALLOW_NETWORKS))


def load(path: str) -> Registry:
    if not os.path.exists(path):
        return Registry({})
    with open(path, encoding="utf-8") as fh:
        return Registry.from_json(json.load(fh))


def save(path: str, registry: Registry) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tenants-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(registry.to_json(), fh, indent=2, sort_keys=True)
            fh.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _scopes(text: str, allowed: frozenset[str]) -> frozenset[str]:
    scopes = frozenset(s.strip() for s in text.split(",") if s.strip())
    if not scopes or not scopes <= allowed:
        raise SystemExit(f"scopes must be a comma-separated subset of {sorted(allowed)}")
    return scopes


def _key_id(existing: tuple[ApiKey, ...]) -> str:
    taken = {k.id for k in existing}
    return next(f"k{n}" for n in range(1, len(taken) + 2) if f"k{n}" not in taken)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """One command on the file; returns what to print (a new key is in it exactly once)."""
    registry = load(args.file)
    tenants = dict(registry.tenants)
    internal = dict(registry.internal)
    out: dict[str, Any] = {}
    if args.command == "add-tenant":
        if args.name in tenants:
            raise SystemExit(f"tenant {args.name!r} exists")
        tokens = None
        if args.jwks_url:
            tokens = PlayerTokens(args.issuer or args.name, args.audience, jwks_url=args.jwks_url)
        else:
            secret = secrets.token_urlsafe(48)
            tokens = PlayerTokens(args.issuer or args.name, args.audience, hs256_secret=secret)
            out["hs256_secret"] = secret  # the portal signs player tokens with it
        tenants[args.name] = Tenant(args.name, (), tokens, args.shared_pool)
        out |= {"tenant": args.name, "issuer": tokens.issuer, "audience": tokens.audience}
    elif args.command == "add-key":
        key = new_key()
        if args.internal:
            keys = internal.get(args.name, ())
            record = ApiKey(_key_id(keys), key_digest(key), _scopes(args.scopes, INTERNAL_SCOPES))
            internal[args.name] = (*keys, record)
        else:
            tenant = tenants.get(args.name)
            if tenant is None:
                raise SystemExit(f"no tenant {args.name!r}: add-tenant first")
            record = ApiKey(_key_id(tenant.keys), key_digest(key), _scopes(args.scopes, TENANT_SCOPES))
            tenants[args.name] = replace(tenant, keys=(*tenant.keys, record))
        out = {"name": args.name, "key_id": record.id, "scopes": sorted(record.scopes), "key": key}
    elif args.command == "revoke-key":
        holder = internal if args.internal else {n: t.keys for n, t in tenants.items()}
        keys = holder.get(args.name)
        if keys is None or all(k.id != args.key_id for k in keys):
            raise SystemExit(f"{args.name!r} has no key {args.key_id!r}")
        kept = tuple(k for k in keys if k.id != args.key_id)
        if args.internal:
            internal[args.name] = kept
        else:
            tenants[args.name] = replace(tenants[args.name], keys=kept)
        out = {"name": args.name, "revoked": args.key_id}
    elif args.command in ("rotate-secret", "drop-old-secrets"):
        tenant = tenants.get(args.name)
        tokens = tenant.player_tokens if tenant is not None else None
        if tenant is None or tokens is None or tokens.hs256_secret is None:
            raise SystemExit(f"{args.name!r} is no tenant signing player tokens with an HS256 secret")
        if args.command == "rotate-secret":  # the new secret signs from now on; the old ones still verify
            secret = secrets.token_urlsafe(48)
            tokens = replace(tokens, hs256_secret=secret,
                             previous_hs256_secrets=(tokens.hs256_secret, *tokens.previous_hs256_secrets))
            out = {"tenant": args.name, "hs256_secret": secret,
                   "previous_secrets": len(tokens.previous_hs256_secrets)}
        else:  # the portal signs with the new secret only: tokens signed with an old one are refused from now
            out = {"tenant": args.name, "dropped_secrets": len(tokens.previous_hs256_secrets)}
            tokens = replace(tokens, previous_hs256_secrets=())
        tenants[args.name] = replace(tenant, player_tokens=tokens)
    elif args.command in ("set-webhook", "remove-webhook"):
        tenant = tenants.get(args.name)
        if tenant is None:
            raise SystemExit(f"no tenant {args.name!r}: add-tenant first")
        if args.command == "set-webhook":
            secret = args.secret or secrets.token_urlsafe(32)
            try:
                webhook = Webhook.from_json({"url": args.url, "secret": secret})
            except ValueError as exc:
                raise SystemExit(str(exc)) from None
            refusal = url_refusal(webhook.url, allowed_networks())
            if refusal is not None:  # the delivery worker would post inside the cluster, where the tenant names
                raise SystemExit(f"webhook url {webhook.url!r}: {refusal}")
            tenants[args.name] = replace(tenant, webhook=webhook)
            out = {"tenant": args.name, "url": webhook.url}
            if not args.secret:
                out["secret"] = secret  # the portal verifies its webhooks with it
        else:
            tenants[args.name] = replace(tenant, webhook=None)
            out = {"tenant": args.name, "webhook": None}
    elif args.command == "list":
        doc = registry.to_json()
        for tenant in doc["tenants"].values():  # never print a signing secret back
            tenant.get("player_tokens", {}).pop("hs256_secret", None)
            tenant.get("player_tokens", {}).pop("previous_hs256_secrets", None)
            tenant.get("webhook", {}).pop("secret", None)
        return doc
    save(args.file, Registry(tenants, internal))
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m torres_service.keys", description=__doc__)
    p.add_argument("--file", default=TENANTS_FILE.read() or "tenants.json",
                   help="the tenants file (default: $TORRES_TENANTS_FILE)")
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("add-tenant", help="a portal; prints its HS256 secret once unless --jwks-url is given")
    t.add_argument("name")
    t.add_argument("--issuer", help="the iss of its player tokens (default: the name)")
    t.add_argument("--audience", default=DEFAULT_AUDIENCE)
    t.add_argument("--jwks-url", help="verify its player tokens (EdDSA/RS256/ES256) against this key set")
    t.add_argument("--shared-pool", action="store_true", help="match its players with other shared-pool tenants")
    for name, text in (("add-key", "a new key, printed once"), ("revoke-key", "remove a key at once")):
        k = sub.add_parser(name, help=text)
        k.add_argument("name", help="a tenant, or with --internal a service (matcher, ai-worker, ratings)")
        k.add_argument("--internal", action="store_true")
        if name == "add-key":
            allowed = f"tenant: {','.join(sorted(TENANT_SCOPES))}; internal: {','.join(sorted(INTERNAL_SCOPES))}"
            k.add_argument("--scopes", required=True, help=allowed)
        else:
            k.add_argument("key_id")
    r = sub.add_parser("rotate-secret", help="a new HS256 secret for a tenant's player tokens, printed once; the "
                                             "old one still verifies until drop-old-secrets")
    r.add_argument("name")
    d = sub.add_parser("drop-old-secrets", help="tokens signed with a secret rotate-secret replaced are refused")
    d.add_argument("name")
    w = sub.add_parser("set-webhook", help="where the game service posts the tenant's game webhooks; prints the "
                                           "signing secret once unless --secret gives the portal's own")
    w.add_argument("name")
    w.add_argument("--url", required=True, help="the portal's endpoint (https:// in production)")
    w.add_argument("--secret", help="the HMAC secret to sign with (at least 16 bytes; default: a new random one)")
    n = sub.add_parser("remove-webhook", help="no more webhooks for the tenant (pending ones are not delivered)")
    n.add_argument("name")
    sub.add_parser("list", help="tenants, key ids and scopes (no secrets)")
    return p


def main(argv: list[str] | None = None) -> int:
    print(json.dumps(run(parser().parse_args(argv)), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
