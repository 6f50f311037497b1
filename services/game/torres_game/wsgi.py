"""gunicorn entry point: ``gunicorn -w 4 -k gthread --threads 8 'torres_game.wsgi:app'``.

Configuration comes from the environment (see ``config.py``); set ``TORRES_API_KEY`` and
``TORRES_ADMIN_KEY`` explicitly, since workers do not share generated keys. Use threaded workers when clients
long-poll ``/wait`` or hold ``/stream`` open, since each open request occupies a thread.
"""

import logging
import os

from torres_game.app import create_app
from torres_game.config import Config
from torres_service.logs import configure_logging

configure_logging("torres_game")
if not (os.environ.get("TORRES_API_KEY") and os.environ.get("TORRES_ADMIN_KEY")):
    logging.getLogger("torres_game.wsgi").error(
        "TORRES_API_KEY / TORRES_ADMIN_KEY unset: each gunicorn worker generates its own keys, so"
        " requests will fail on the other workers. Set both variables in production.")
app = create_app(Config.from_env())
