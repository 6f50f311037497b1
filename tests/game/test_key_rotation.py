"""Key rotation under load: a real gunicorn game service (two gevent workers) reads its keys from a
tenants file re-read within ``TORRES_TENANTS_RELOAD`` seconds; while a portal keeps sending requests with its old
key, the operator adds a new key (the CLI, a process of its own), the portal switches to it, and the operator
revokes the old one.

What is promised, and checked here to the letter (docs/operations.md, "Rotate keys"):

* the old key is never refused before its revocation was written: every request with it that got its answer
  before the ``revoke-key`` command started is 200;
* the old key is refused everywhere once the reload interval has passed after the command finished: every request
  with it sent later than that is 401 ``invalid_credentials``, on every worker;
* the new key is accepted everywhere once the reload interval has passed after ``add-key`` finished: no request
  with it sent later than that is refused.

In between (the interval itself) a worker may still answer from its previous reading: that is the window the
interval bounds. Why it holds: each worker re-checks the file (inode, mtime, size) on the first request at least
``reload`` seconds after its last check, and the CLI replaces the file atomically (rename), so a request that
starts later than ``written + reload`` finds the new document.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .servers import HttpClient, gunicorn
from .tenant_helpers import cli, cli_process

RELOAD = 0.3  # seconds: TORRES_TENANTS_RELOAD of the server under test
MARGIN = 0.1  # scheduling slack beyond the promise (a request's start is taken before it is sent)


@dataclass
class Load:
    """A portal's stream of requests with one key: (sent, answered, status) of each, from a thread of its own."""

    client: HttpClient
    key: str
    samples: list[tuple[float, float, int]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set():
            sent = time.monotonic()
            status = self.client.get("/v1/games?limit=1", headers={"X-API-Key": self.key}).status_code
            self.samples.append((sent, time.monotonic(), status))

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, daemon=True)
        thread.start()
        return thread


def test_rotation_under_load_refuses_nothing_before_the_revocation_and_everything_after(tmp_path: Path) -> None:
    tenants = tmp_path / "tenants.json"
    cli(tenants, "add-tenant", "portal")
    old = cli(tenants, "add-key", "portal", "--scopes", "games")
    url = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    env = {"TORRES_TENANTS_FILE": str(tenants), "TORRES_TENANTS_RELOAD": str(RELOAD)}
    with gunicorn(url, workers=2, extra_env=env) as server:
        old_load = Load(server.client, old["key"])
        threads = [old_load.start(), old_load.start()]  # two connections at a time: both workers serve them
        time.sleep(1.0)

        new = cli_process(tenants, "add-key", "portal", "--scopes", "games")  # the operator adds a key
        added = time.monotonic()
        new_load = Load(server.client, new["key"])
        threads.append(new_load.start())  # the portal switches over (the old key is still in use meanwhile)
        time.sleep(1.0)

        revoking = time.monotonic()
        cli_process(tenants, "revoke-key", "portal", old["key_id"])  # the operator revokes the old key
        revoked = time.monotonic()
        time.sleep(RELOAD + 1.0)
        old_load.stop.set()
        new_load.stop.set()
        for thread in threads:
            thread.join(timeout=70)

    before = [status for _, answered, status in old_load.samples if answered < revoking]
    after = [status for sent, _, status in old_load.samples if sent > revoked + RELOAD + MARGIN]
    assert len(before) > 50 and len(after) > 20, (len(before), len(after))  # the load was real on both sides
    assert set(before) == {200}, f"the old key was refused before its revocation: {sorted(set(before))}"
    assert set(after) == {401}, f"the old key still served after revocation + {RELOAD} s: {sorted(set(after))}"
    window = {status for sent, answered, status in old_load.samples if answered >= revoking and
              sent <= revoked + RELOAD + MARGIN}
    assert window <= {200, 401}  # inside the interval: either reading, nothing else

    settled = [status for sent, _, status in new_load.samples if sent > added + RELOAD + MARGIN]
    assert len(settled) > 50 and set(settled) == {200}, sorted(set(settled))
    assert {status for *_, status in new_load.samples} <= {200, 401}
