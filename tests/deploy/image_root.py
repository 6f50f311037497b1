"""Processes started from the built image, the way a container runtime would start them, where none runs.

OCI runtimes cannot start containers on these machines (they fail setting rlimits), so a process runs in the
image's root file system instead: buildah mounts the image, and each process gets a mount namespace of its own in
which that root is read-only (as compose's `read_only: true` and Kubernetes' `readOnlyRootFilesystem`), with the
tmpfs and bind mounts its compose service declares, /proc and /dev, then `chroot` into it as the image's user, in
its working directory, with its environment. The network is the host's: every address is on loopback.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any


def buildah(*args: str, **kw: Any) -> str:
    return subprocess.run(["buildah", *args], check=True, capture_output=True, text=True, **kw).stdout.strip()


class ImageRoot:
    """The image's root file system, mounted for as long as this lives (``close`` unmounts and removes it)."""

    def __init__(self, image: str) -> None:
        self.container = buildah("from", "--pull=never", image)
        self.path = Path(buildah("mount", self.container))
        config = json.loads(buildah("inspect", "--type", "image", image))
        self.docker_config: dict[str, Any] = config.get("Docker", {}).get("config", {})
        oci = config["OCIv1"]["config"]
        self.env = dict(item.split("=", 1) for item in oci.get("Env", []))
        self.workdir: str = oci.get("WorkingDir") or "/"
        self.user: str = oci.get("User") or "0:0"

    def mountpoint(self, target: str) -> None:
        """A directory for a mount that the image does not have: made in the container's own writable layer, as a
        runtime makes it, before the root is made read-only."""
        (self.path / target.lstrip("/")).mkdir(parents=True, exist_ok=True)

    def argv(self, command: Sequence[str], *, tmpfs: Sequence[str] = ("/tmp",),
             binds: Sequence[tuple[str, str, bool]] = ()) -> list[str]:
        """The host command that runs ``command`` in the image: binds are (host path, target, read-only)."""
        root = shlex.quote(str(self.path))
        steps = [f"mount --bind {root} {root}", f"mount -o remount,bind,ro {root}",
                 f"mount -t proc proc {root}/proc", f"mount --rbind /dev {root}/dev"]
        for target in tmpfs:
            self.mountpoint(target)
            steps.append(f"mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs {root}{shlex.quote(target)}")
        for source, target, read_only in binds:
            self.mountpoint(target)
            steps.append(f"mount --bind {shlex.quote(source)} {root}{shlex.quote(target)}")
            if read_only:
                steps.append(f"mount -o remount,bind,ro {root}{shlex.quote(target)}")
        steps.append(f'exec chroot --userspec={shlex.quote(self.user)} {root} /usr/bin/env -C '
                     f'{shlex.quote(self.workdir)} "$@"')
        return ["/usr/bin/unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-ec",
                " && ".join(steps), "image", *command]

    def popen(self, command: Sequence[str], env: dict[str, str], *, log: IO[bytes] | int | None = None,
              stdin: IO[bytes] | int | None = subprocess.DEVNULL, **mounts: Any) -> subprocess.Popen[bytes]:
        """``command`` in the image, with the image's environment under ``env``. Its pid is the command's own
        (each step execs the next), so a signal sent to it reaches the process itself, as a runtime's does."""
        return subprocess.Popen(self.argv(command, **mounts), env={**self.env, **env}, stdin=stdin,
                                stdout=log, stderr=subprocess.STDOUT if log is not None else None)

    def run(self, command: Sequence[str], env: dict[str, str] | None = None, *, input: bytes | None = None,
            timeout: float = 60, **mounts: Any) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(self.argv(command, **mounts), env={**self.env, **(env or {})}, input=input,
                              capture_output=True, timeout=timeout)

    def close(self) -> None:
        subprocess.run(["buildah", "umount", self.container], capture_output=True)
        subprocess.run(["buildah", "rm", self.container], capture_output=True)


def runnable() -> str | None:
    """Why images cannot be built and run here, or None."""
    if os.geteuid() != 0:
        return "buildah not reachable: building and mounting an image needs root"
    for tool in ("buildah", "debootstrap", "unshare", "chroot"):
        if shutil.which(tool) is None:
            return f"buildah not reachable: {tool} is not installed (apt-get install buildah debootstrap)"
    return None
