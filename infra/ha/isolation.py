"""Where the HA stand-ins run, and how what they leave behind is found again.

* :func:`network_namespace`: the calling thread moves into a network namespace of its own (only ``lo``, up) until
  the block ends; every thread and process it starts meanwhile stays in it. The stand-ins started inside one, and
  the clients that talk to them, reach nothing but each other, and a partition (iptables rules inside that
  namespace: :func:`iptables`, :meth:`pg_ha.PgHa.partition`) never touches this machine's network. The namespace
  has no name: the kernel removes it, with its rules, once the last process in it has ended.
* :func:`claim` and :func:`sweep`: each stand-in's temporary directory names the process that made it (pid and
  start time), and each process it starts runs in that directory or carries ``TORRES_HA_BASE=<that directory>``
  in its environment. A stand-in
  whose owner is gone (a test run SIGKILLed before its clean-up) is swept when the next one starts: its processes
  SIGKILLed, its directory removed. Stand-ins of owners that still run (another test run on this machine) are left
  alone.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

CLONE_NEWNET = 0x40000000
ENV = "TORRES_HA_BASE"
OWNER_FILE = "owner"
PREFIXES = ("torres-pg-ha-", "torres-redis-ha-")

_libc = ctypes.CDLL(None, use_errno=True)


def _this_thread_netns() -> str:
    return os.readlink("/proc/thread-self/ns/net")


#: The network namespaces :func:`network_namespace` made in this process (``net:[inode]``).
MADE: set[str] = set()


def made_here(netns: str) -> bool:
    """Whether ``netns`` is a namespace this process made (and so one whose rules touch nothing else)."""
    return netns in MADE


@contextlib.contextmanager
def network_namespace() -> Iterator[str]:
    """A fresh network namespace for the calling thread (and what it starts) for the duration of the block; yields
    its name in /proc (``net:[inode]``). Needs CAP_SYS_ADMIN (root)."""
    host = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        if _libc.unshare(CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"unshare(CLONE_NEWNET): {os.strerror(err)}")
        try:
            subprocess.run(["ip", "link", "set", "lo", "up"], check=True, capture_output=True, timeout=10)
            made = _this_thread_netns()
            MADE.add(made)
            yield made
        finally:
            if _libc.setns(host, CLONE_NEWNET) != 0:
                err = ctypes.get_errno()
                raise OSError(err, f"setns back to the host's network namespace: {os.strerror(err)}")
    finally:
        os.close(host)


def iptables(netns: str, pid: int, *args: str) -> None:
    """Run ``iptables *args`` in the network namespace of process ``pid`` (a stand-in's), refused unless that
    namespace is ``netns`` and one this process made: a rule never reaches this machine's own network."""
    if not made_here(netns) or os.readlink(f"/proc/{pid}/ns/net") != netns:
        raise RuntimeError("iptables rules need the stand-in started in a network namespace of its own "
                           "(isolation.network_namespace)")
    subprocess.run(["nsenter", f"--net=/proc/{pid}/ns/net", "iptables", "-w", "5", *args],
                   check=True, capture_output=True, timeout=20)


def keep_logs(base: Path, into: Path | None) -> None:
    """Copy a stand-in's logs (``base/*.log``) to ``into`` before its directory goes (None: keep nothing)."""
    if into is not None and base.exists():
        into.mkdir(parents=True, exist_ok=True)
        for log in base.glob("*.log"):
            shutil.copy(log, into / log.name)


def _start_time(pid: int) -> str | None:
    with contextlib.suppress(OSError, IndexError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    return None


def claim(base: Path) -> None:
    """Write who owns the stand-in in ``base``: this process, by pid and start time (a pid can be reused)."""
    (base / OWNER_FILE).write_text(f"{os.getpid()} {_start_time(os.getpid())}\n")


def _owner_alive(base: Path) -> bool:
    try:
        pid_text, started = (base / OWNER_FILE).read_text().split()
    except (OSError, ValueError):
        return False
    return _start_time(int(pid_text)) == started


def processes_of(base: Path) -> list[int]:
    """Every process of the stand-in in ``base``: its environment names ``base``, or it runs in ``base`` or below
    (Redis and PostgreSQL write their process titles over the memory /proc shows the environment from, but they
    run where the stand-in started them: its directory, a data directory in it)."""
    marker = f"{ENV}={base}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            cwd = os.readlink(entry / "cwd")
            if cwd == str(base) or cwd.startswith(f"{base}/") or \
                    marker in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
    return found


def kill_all(base: Path) -> None:
    """SIGKILL every process of the stand-in in ``base`` (resumed first: a stopped process dies only once it runs)."""
    for _ in range(3):  # a process may start another one meanwhile (Patroni its postmaster)
        pids = processes_of(base)
        if not pids:
            return
        for sig in (signal.SIGCONT, signal.SIGKILL):
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)


def sweep(tmp: Path | None = None) -> list[Path]:
    """Remove the stand-ins whose owner is gone: their processes SIGKILLed, their directories removed. Returns
    the directories swept."""
    swept = []
    root = tmp or Path(tempfile.gettempdir())
    for prefix in PREFIXES:
        for base in root.glob(f"{prefix}*"):
            if base.is_dir() and (base / OWNER_FILE).exists() and not _owner_alive(base):
                kill_all(base)
                shutil.rmtree(base, ignore_errors=True)
                swept.append(base)
    return swept
