"""gunicorn entry point: ``gunicorn -c infra/gunicorn.conf.py 'torres_game.wsgi:app'``.

The configuration file sets the gevent worker class (waiting clients cost a greenlet, not a thread), the worker
count, timeouts, keep-alive, graceful shutdown and the bind address from ``PORT``. The service's own settings
come from the environment (see ``config.py``); set ``TORRES_API_KEY`` and ``TORRES_ADMIN_KEY`` explicitly, since
workers do not share generated keys.
"""

import atexit
import logging

from torres_game.app import create_app
from torres_game.config import Config
from torres_service.logs import configure_logging
from torres_service.settings import values

configure_logging("torres_game")
_explicit = values(Config)  # what the environment sets, before keys are generated
if not (_explicit.get("api_key") and _explicit.get("admin_key")):
    logging.getLogger("torres_game.wsgi").error(
        "TORRES_API_KEY / TORRES_ADMIN_KEY unset: each gunicorn worker generates its own keys, so"
        " requests will fail on the other workers. Set both variables in production.")
app = create_app(Config.from_env())
# Close the pool and the notification listener while the worker's event loop still runs, not in a finalizer.
atexit.register(app.extensions["torres_game"].close)
