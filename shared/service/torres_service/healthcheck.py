"""``python -m torres_service.healthcheck``: the container image's HEALTHCHECK, for any component.

It GETs ``HEALTHCHECK_URL`` (default ``http://127.0.0.1:$PORT/healthz``) and exits 0 on a 2xx answer, 1
otherwise. The slim image has no curl, and one probe written in the image's own Python serves the HTTP
services (their liveness endpoint) and the workers (their metrics port) alike.
"""

from __future__ import annotations

import sys
import urllib.request

from .serving import PORT
from .settings import Process, Setting

URL = Setting("HEALTHCHECK_URL", "what the image's probe GETs", default="", shown="`http://127.0.0.1:$PORT/healthz`")
TIMEOUT = Setting("HEALTHCHECK_TIMEOUT", "seconds the probe waits for its answer", default=2.0)
SETTINGS = (URL, PORT, TIMEOUT)
PROCESS = Process("the image's probe", SETTINGS)


def main() -> int:
    url = URL.read() or f"http://127.0.0.1:{PORT.read()}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT.read()) as response:
            return 0 if 200 <= response.status < 300 else 1
    except OSError as exc:
        print(f"unhealthy: {url}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
