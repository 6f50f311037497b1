"""A server of a test's own (a stand-in portal, a JWKS host, a static page host, a game service on loopback) served
from a thread for as long as the test needs it: one way to start and stop them, so that none is left listening."""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def served(server: socketserver.TCPServer) -> Iterator[str]:
    """Serve ``server`` (bound already) from a daemon thread; yields its base URL, then stops it and closes its
    socket."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def free_port() -> int:
    """A loopback port nothing listens on now (the kernel's pick): for a server a test starts in another process."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
