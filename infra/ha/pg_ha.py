"""An HA PostgreSQL stand-in on one machine (``make pg-ha``): etcd, three Patroni nodes and HAProxy, all on loopback.

What production runs, scaled down to one machine, so the services can be driven through a real failover:

* etcd (the Debian ``etcd-server`` package) with its v2 API on, as Patroni's distributed configuration store.
  Patroni's ``etcd:`` section (v2) rather than ``etcd3:``: Debian's patroni 3.0.2 with ``etcd3:`` let a leader
  that resumed after a long SIGSTOP overwrite the new leader's key, and writes acknowledged with a synchronous
  standby were lost (fixed in patroni 3.0.3); v2's compare-and-swap does not show it.
* three Patroni nodes (PostgreSQL 15), ``synchronous_mode`` on: a commit is acknowledged once a synchronous
  standby has it, so a failover never loses an acknowledged write. ``--async`` turns it off (what the fault
  suite's checker must catch). Each node has its own data directory, socket directory and ports, and runs as the
  ``postgres`` user (PostgreSQL refuses root).
* HAProxy in front: one port that always reaches the current primary, found by Patroni's REST check
  (``GET /primary`` every second, down after two failures) and with every session of a server marked down shut:
  on loopback a client blocked on a hung (SIGSTOPped) primary is freed in about two seconds that way, where TCP
  keepalives cannot (the kernel keeps acknowledging for a stopped process).

Every process runs in a session of its own and is SIGKILLed at :meth:`PgHa.stop`, together with the postmasters
Patroni starts (also in sessions of their own: found by their data directories, which live under this cluster's
temporary directory, and by the ``TORRES_HA_BASE`` each inherits: isolation.py sweeps a cluster whose owner died
before it could stop it). ``python infra/ha/pg_ha.py`` starts one, prints the URL, and stops it at Ctrl-C.

A network partition of a node (:meth:`PgHa.partition`) is made of iptables rules, so it needs the cluster started
in a network namespace of its own (isolation.network_namespace): the rules then live and die with that namespace.
Everything is on loopback there, so a node is told apart by its ports (PostgreSQL, REST API) and by the address it
reaches etcd at: etcd listens on 127.0.0.1 for the tools and on one more loopback address per node
(127.0.0.11, .12, ...), and each Patroni talks to its own address only (``use_proxies``: no discovery of etcd's
advertised address).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import isolation

#: Patroni's timings: a leader key lives ``TTL`` seconds, Patroni loops every ``LOOP_WAIT``; a dead primary is
#: replaced within about TTL + LOOP_WAIT (Patroni wants LOOP_WAIT + 2 x RETRY_TIMEOUT <= TTL). With 10/2/4 a hung
#: or killed primary cost up to 15.6 and 16.6 s of refused requests through HAProxy, with 8/1/3 a hung or
#: partitioned one up to 16.6 s on a loaded machine (docs/operations.md).
TTL, LOOP_WAIT, RETRY_TIMEOUT = 6, 1, 2
#: Bytes of WAL a standby may lack and still be promoted (Patroni's ``maximum_lag_on_failover``, default 1 MB).
#: Under ``synchronous_mode`` only the synchronous standby is promoted and what it lacks was never acknowledged;
#: a lag limit then only decides whether a primary lost while its standby fell behind (the fault suite's lagging
#: kill: a second of writes is several MB on a loaded machine) is replaced at all, or the cluster stays without
#: one. Asynchronously, it is the most a failover may lose.
MAX_LAG_ON_FAILOVER = 64 * 1024 * 1024
PG_BIN_GLOB = "/usr/lib/postgresql/*/bin"
USER = "postgres"


class Unavailable(RuntimeError):
    """A binary or the ``postgres`` user this machine lacks."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pg_bin_dir() -> Path:
    found = sorted(Path("/").glob(PG_BIN_GLOB.lstrip("/")))
    if not found:
        raise Unavailable("PostgreSQL server binaries not found (apt-get install postgresql)")
    return found[-1]


def missing_tools() -> list[str]:
    """What this machine lacks to run the stand-in (empty when it can)."""
    missing = [name for name in ("etcd", "patroni", "haproxy") if shutil.which(name) is None]
    try:
        pg_bin_dir()
    except Unavailable:
        missing.append("postgresql")
    try:
        pwd.getpwnam(USER)
    except KeyError:
        missing.append(f"user {USER}")
    if os.geteuid() != 0:
        missing.append("root (the daemons run as postgres)")
    return missing


def partition_tools_missing() -> list[str]:
    """What :meth:`PgHa.partition` needs beyond :func:`missing_tools` (apt-get install iptables)."""
    return [name for name in ("iptables", "nsenter") if shutil.which(name) is None]


def _http_json(url: str, *, method: str = "GET", body: dict[str, object] | None = None,
               timeout: float = 2.0) -> tuple[int, dict[str, object]]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            status = response.status
    except urllib.error.HTTPError as exc:
        raw, status = exc.read(), exc.code
    try:
        parsed = json.loads(raw) if raw else {}
    except ValueError:
        parsed = {"text": raw.decode(errors="replace")}
    return status, parsed if isinstance(parsed, dict) else {"value": parsed}


@dataclass
class Node:
    """One Patroni node: its name, PostgreSQL port, REST port, data directory and the Patroni process."""

    name: str
    pg_port: int
    rest_port: int
    home: Path
    process: subprocess.Popen[bytes] | None = None
    stopped: bool = False

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def rest(self) -> str:
        return f"http://127.0.0.1:{self.rest_port}"

    def pids(self) -> list[int]:
        """Patroni and every PostgreSQL process of this node (the postmaster is in a session of its own)."""
        pids = set()
        if self.process is not None and self.process.poll() is None:
            pids.add(self.process.pid)
        postmaster = _postmaster_pid(self.data_dir)
        if postmaster is not None:
            pids.add(postmaster)
        return sorted(pids | _descendants(pids))

    def wal_receivers(self) -> list[int]:
        found = []
        for pid in self.pids():
            with contextlib.suppress(OSError):
                if b"walreceiver" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(pid)
        return found


def _postmaster_pid(data_dir: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        pid = int((data_dir / "postmaster.pid").read_text().splitlines()[0])
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if str(data_dir).encode() in cmdline:  # the pid file may name a process that is gone or reused
            return pid
    return None


def _descendants(roots: set[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = list(roots)
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _signal(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


@dataclass
class PgHa:
    """The stand-in: ``start()``, then :attr:`url` reaches the primary through HAProxy; ``stop()`` ends it all."""

    synchronous: bool = True
    nodes_count: int = 3
    base: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="torres-pg-ha-")))
    nodes: list[Node] = field(default_factory=list)
    etcd_port: int = field(default_factory=free_port)
    etcd_peer_port: int = field(default_factory=free_port)
    proxy_port: int = field(default_factory=free_port)
    database: str = "torres"
    netns: str = ""  # the network namespace it was started in
    _procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _partitions: dict[str, list[list[str]]] = field(default_factory=dict)  # node name -> its iptables rules

    @property
    def admin_url(self) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.proxy_port}/postgres"

    @property
    def url(self) -> str:
        """The services' URL: the primary, whichever node it is, through HAProxy."""
        return f"postgresql://{USER}@127.0.0.1:{self.proxy_port}/{self.database}"

    @property
    def multi_host_url(self) -> str:
        """The libpq alternative to HAProxy: every node, the one that takes writes chosen at connect."""
        hosts = ",".join("127.0.0.1" for _ in self.nodes)
        ports = ",".join(str(n.pg_port) for n in self.nodes)
        return f"postgresql://{USER}@{hosts}:{ports}/{self.database}?target_session_attrs=read-write"

    # -- start and stop -------------------------------------------------------------------------

    def start(self, timeout: float = 90.0) -> None:
        missing = missing_tools()
        if missing:
            raise Unavailable(f"missing: {', '.join(missing)}")
        isolation.sweep()
        isolation.claim(self.base)
        self.netns = os.readlink("/proc/thread-self/ns/net")
        user = pwd.getpwnam(USER)
        os.chown(self.base, user.pw_uid, user.pw_gid)
        self.base.chmod(0o700)
        try:
            self._start_etcd()
            for i in range(self.nodes_count):
                node = Node(f"pg{i}", free_port(), free_port(), self.base / f"pg{i}")
                node.home.mkdir()
                (node.home / "run").mkdir()
                os.chown(node.home, user.pw_uid, user.pw_gid)
                os.chown(node.home / "run", user.pw_uid, user.pw_gid)
                self.nodes.append(node)
            self._start_proxy()
            for node in self.nodes:
                self._write_patroni_config(node)
                self.start_node(node)
                if node is self.nodes[0]:  # the first bootstraps the cluster; the others clone it
                    self.wait_for_leader(timeout)
            self.wait_healthy(timeout)
            self._create_database(timeout)
        except BaseException:
            self.stop()
            raise

    def stop(self, keep_logs: Path | None = None) -> None:
        """SIGKILL everything this cluster started and remove its directory (safe to call twice), its logs copied
        to ``keep_logs`` first if given."""
        pids: list[int] = []
        for node in self.nodes:
            pids += node.pids()
        for proc in self._procs:
            if proc.poll() is None:
                pids.append(proc.pid)
                pids += sorted(_descendants({proc.pid}))
        _signal(pids, signal.SIGCONT)  # a stopped process dies only once it runs
        _signal(pids, signal.SIGKILL)
        isolation.kill_all(self.base)  # whatever the pids above missed (a postmaster started meanwhile)
        for proc in self._procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
        for node in self.nodes:
            if node.process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    node.process.wait(timeout=10)
        isolation.keep_logs(self.base, keep_logs)
        shutil.rmtree(self.base, ignore_errors=True)

    def _spawn(self, argv: list[str], log_name: str, *, as_user: bool = True) -> subprocess.Popen[bytes]:
        log = (self.base / log_name).open("ab")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(self.base),
               isolation.ENV: str(self.base)}
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                cwd=self.base, start_new_session=True, user=USER if as_user else None,
                                group=USER if as_user else None)
        log.close()
        self._procs.append(proc)
        return proc

    def _start_etcd(self) -> None:
        client, peer = f"http://127.0.0.1:{self.etcd_port}", f"http://127.0.0.1:{self.etcd_peer_port}"
        listen = ",".join([client, *(f"http://{self.etcd_address(i)}:{self.etcd_port}"
                                     for i in range(self.nodes_count))])
        self._spawn(["etcd", "--name", "etcd0", "--data-dir", str(self.base / "etcd"), "--enable-v2=true",
                     "--listen-client-urls", listen, "--advertise-client-urls", client,
                     "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                     "--initial-cluster", f"etcd0={peer}", "--initial-cluster-state", "new",
                     "--log-level", "warn"], "etcd.log")
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError):
                if _http_json(f"{client}/health")[0] == 200:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"etcd did not start; see {self.base / 'etcd.log'}")
            time.sleep(0.1)

    def _write_patroni_config(self, node: Node) -> None:
        config = {
            "scope": "torres", "namespace": "/torres/", "name": node.name,
            "restapi": {"listen": f"127.0.0.1:{node.rest_port}", "connect_address": f"127.0.0.1:{node.rest_port}"},
            "etcd": {"host": f"{self.etcd_address(self.nodes.index(node))}:{self.etcd_port}", "use_proxies": True},
            "bootstrap": {
                "dcs": {
                    "ttl": TTL, "loop_wait": LOOP_WAIT, "retry_timeout": RETRY_TIMEOUT,
                    "maximum_lag_on_failover": MAX_LAG_ON_FAILOVER, "synchronous_mode": self.synchronous,
                    "postgresql": {"use_pg_rewind": True, "use_slots": True,
                                   "parameters": {"wal_log_hints": "on", "max_connections": 200,
                                                  "max_wal_senders": 10, "max_replication_slots": 10,
                                                  "wal_keep_size": "256MB", "shared_buffers": "32MB"}},
                },
                "initdb": [{"encoding": "UTF8"}, {"locale": "C.UTF-8"}],
            },
            "postgresql": {
                "listen": f"127.0.0.1:{node.pg_port}", "connect_address": f"127.0.0.1:{node.pg_port}",
                "data_dir": str(node.data_dir), "bin_dir": str(pg_bin_dir()),
                "pgpass": str(node.home / "pgpass"),
                "authentication": {"superuser": {"username": USER}, "replication": {"username": USER},
                                   "rewind": {"username": USER}},
                "parameters": {"unix_socket_directories": str(node.home / "run")},
                "pg_hba": ["local all all trust", "host all all 127.0.0.1/32 trust",
                           "host replication all 127.0.0.1/32 trust"],
            },
            "tags": {"nofailover": False, "noloadbalance": False, "clonefrom": False, "nosync": False},
        }
        path = node.home / "patroni.yml"
        path.write_text(json.dumps(config, indent=1))  # JSON is YAML
        user = pwd.getpwnam(USER)
        os.chown(path, user.pw_uid, user.pw_gid)

    def _start_proxy(self) -> None:
        servers = "\n".join(
            f"    server {n.name} 127.0.0.1:{n.pg_port} check port {n.rest_port}" for n in self.nodes)
        (self.base / "haproxy.cfg").write_text(f"""global
    maxconn 1000
defaults
    mode tcp
    timeout connect 2s
    timeout client 30m
    timeout server 30m
    timeout check 1s
listen primary
    bind 127.0.0.1:{self.proxy_port}
    option httpchk
    http-check send meth GET uri /primary
    http-check expect status 200
    default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
{servers}
""")
        self._spawn(["haproxy", "-db", "-f", str(self.base / "haproxy.cfg")], "haproxy.log", as_user=False)

    @staticmethod
    def etcd_address(index: int) -> str:
        """The loopback address node ``index`` reaches etcd at (its own, so a partition can cut it alone)."""
        return f"127.0.0.{11 + index}"

    def start_node(self, node: Node) -> None:
        node.process = self._spawn(["patroni", str(node.home / "patroni.yml")], f"{node.name}.log")
        node.stopped = False

    # -- what the cluster says ------------------------------------------------------------------

    def role(self, node: Node) -> str | None:
        with contextlib.suppress(OSError):
            status, body = _http_json(f"{node.rest}/patroni", timeout=1.0)
            if status in (200, 503):
                return str(body.get("role")) if body.get("state") == "running" else None
        return None

    def leader(self) -> Node | None:
        for node in self.nodes:
            if not node.stopped and self.role(node) in ("master", "primary"):
                return node
        return None

    def wait_for_leader(self, timeout: float = 60.0, *, other_than: Node | None = None) -> Node:
        deadline = time.monotonic() + timeout
        while True:
            leader = self.leader()
            if leader is not None and leader is not other_than:
                return leader
            if time.monotonic() > deadline:
                raise TimeoutError(f"no primary within {timeout} s; logs in {self.base}")
            time.sleep(0.2)

    def wait_healthy(self, timeout: float = 90.0) -> None:
        """Until every running node runs, one is primary, and (in synchronous mode) a synchronous standby exists."""
        deadline = time.monotonic() + timeout
        members: list[dict[str, object]] = []
        while True:
            with contextlib.suppress(OSError):
                status, body = _http_json(f"{self.nodes[0].rest}/cluster", timeout=1.0)
                members = body.get("members", []) if status == 200 else []  # type: ignore[assignment]
                assert isinstance(members, list)
                wanted = [n.name for n in self.nodes if not n.stopped]
                timelines = {m.get("timeline") for m in members if m.get("role") in ("leader", "master", "primary")}
                running = {m["name"] for m in members if m.get("state") in ("running", "streaming")
                           and (m.get("timeline") in timelines or m.get("role") in ("leader", "master", "primary"))}
                roles = {m.get("role") for m in members}
                if set(wanted) <= running and roles & {"leader", "master", "primary"} and (
                        not self.synchronous or self._sync_named(running) or len(wanted) == 1):
                    return
            if time.monotonic() > deadline:
                seen = [{k: m.get(k) for k in ("name", "role", "state", "timeline", "lag")} for m in members]
                raise TimeoutError(f"the cluster did not become healthy within {timeout} s (members: {seen}); "
                                   f"logs in {self.base}")
            time.sleep(0.3)

    def _sync_named(self, running: set[str]) -> bool:
        """Whether the DCS names, for the current leader, a synchronous standby that runs: until it does (a leader
        that has just started or just been restarted), Patroni in synchronous mode has no node it may promote, and a
        primary lost meanwhile stays lost until it comes back."""
        keys = f"http://127.0.0.1:{self.etcd_port}/v2/keys/torres/torres"
        _, leader = _http_json(f"{keys}/leader", timeout=1.0)
        _, sync = _http_json(f"{keys}/sync", timeout=1.0)
        leader_name = leader.get("node", {}).get("value") if isinstance(leader.get("node"), dict) else None
        raw = sync.get("node", {}).get("value") if isinstance(sync.get("node"), dict) else None
        named = json.loads(raw) if isinstance(raw, str) else {}
        return bool(leader_name) and named.get("leader") == leader_name and named.get("sync_standby") in running

    def _create_database(self, timeout: float) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.admin_url, autocommit=True, connect_timeout=2) as conn:
                    if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (self.database,)).fetchone():
                        conn.execute(f'CREATE DATABASE "{self.database}"')
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    # -- faults -----------------------------------------------------------------------------------

    def kill(self, node: Node) -> None:
        """SIGKILL the whole node (Patroni and PostgreSQL), as when its machine dies."""
        pids = node.pids()
        _signal(pids, signal.SIGCONT)
        _signal(pids, signal.SIGKILL)
        if node.process is not None:
            node.process.wait(timeout=10)
        node.stopped = True

    @contextlib.contextmanager
    def standbys_stalled(self, primary: Node) -> Iterator[None]:
        """Replication that lags, as over a slow network: the other nodes' WAL receivers are stopped (SIGSTOP) for
        the block, then SIGKILLed, losing what they had received but not written (their postmasters start them
        again, and they stream on from what they had, from whichever node is primary then). A primary killed in
        the block has, under asynchronous replication, acknowledged commits no standby has; under synchronous
        replication it acknowledged none of the block's commits."""
        receivers = [pid for node in self.nodes if node is not primary for pid in node.wal_receivers()]
        _signal(receivers, signal.SIGSTOP)
        try:
            yield
        finally:
            _signal(receivers, signal.SIGKILL)

    def freeze(self, node: Node) -> None:
        """SIGSTOP the whole node: a primary that hangs, its sockets open, until :meth:`thaw`."""
        _signal(node.pids(), signal.SIGSTOP)

    def thaw(self, node: Node) -> None:
        _signal(node.pids(), signal.SIGCONT)

    def switchover(self, candidate: Node | None = None) -> Node:
        """A planned switchover to ``candidate`` (any healthy standby when None); returns the new primary."""
        deadline = time.monotonic() + 60
        while True:
            leader = self.wait_for_leader()
            body: dict[str, object] = {"leader": leader.name}
            if candidate is not None:
                body["candidate"] = candidate.name
            status, answer = _http_json(f"{leader.rest}/switchover", method="POST", body=body, timeout=30)
            if status == 200:
                return self.wait_for_leader(other_than=leader)
            # 412 while Patroni has no synchronous standby named (one that rejoined is caught up first): later
            if status != 412 or time.monotonic() > deadline:
                raise RuntimeError(f"switchover refused: {status} {answer}")
            time.sleep(1)

    def partition(self, node: Node) -> None:
        """Cut ``node`` off the network: nothing reaches its PostgreSQL or its REST API (HAProxy, the standbys, the
        clients) and it no longer reaches etcd, while every process of it runs on. iptables rules in the cluster's
        network namespace, refused unless that namespace is one of its own (never this machine's network)."""
        if not isolation.made_here(self.netns):
            raise RuntimeError("a partition needs the cluster started in a network namespace of its own "
                               "(isolation.network_namespace)")
        etcd = self.etcd_address(self.nodes.index(node))
        rules = [["-p", "tcp", "-m", "multiport", "--ports", f"{node.pg_port},{node.rest_port}"],
                 ["-p", "tcp", "-d", etcd, "--dport", str(self.etcd_port)],
                 ["-p", "tcp", "-s", etcd, "--sport", str(self.etcd_port)]]
        for rule in rules:
            self._iptables("-A", "INPUT", *rule, "-j", "DROP")
        self._partitions[node.name] = rules

    def heal(self, node: Node) -> None:
        """Remove ``node``'s partition rules (no-op without any)."""
        for rule in self._partitions.pop(node.name, []):
            self._iptables("-D", "INPUT", *rule, "-j", "DROP")

    def _iptables(self, *args: str) -> None:
        isolation.iptables(self.netns, self._procs[0].pid, *args)  # etcd, started first: in the cluster's namespace

    def restart(self, node: Node) -> None:
        """Start a node again after :meth:`kill` (it rejoins as a standby, rewound if need be)."""
        self.start_node(node)


@contextlib.contextmanager
def running(*, synchronous: bool = True) -> Iterator[PgHa]:
    cluster = PgHa(synchronous=synchronous)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--async", dest="asynchronous", action="store_true",
                        help="asynchronous replication (synchronous_mode off): acknowledged writes can be lost")
    args = parser.parse_args()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    with running(synchronous=not args.asynchronous) as cluster:
        print(f"DATABASE_URL={cluster.url}", flush=True)
        print(f"# libpq alternative: {cluster.multi_host_url}", flush=True)
        print(f"# logs and data in {cluster.base}; Ctrl-C stops everything", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})


if __name__ == "__main__":
    main()
