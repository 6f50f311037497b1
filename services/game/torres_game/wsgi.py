"""gunicorn entry point: ``gunicorn -c infra/gunicorn.conf.py 'torres_game.wsgi:app'``.

The configuration file sets the gevent worker class (waiting clients cost a greenlet, not a thread), the worker
count, timeouts, keep-alive, graceful shutdown and the bind address from ``PORT``. The service's own settings
come from the environment (see ``config.py``); set ``TORRES_ADMIN_KEY`` and either ``TORRES_TENANTS_FILE`` or
``TORRES_API_KEY`` explicitly, since workers do not share generated keys.
"""

import atexit
import logging

from torres_game.app import create_app
from torres_game.config import Config
from torres_service.logs import configure_logging
from torres_service.settings import values

configure_logging("torres_game")
_explicit = values(Config)  # what the environment sets, before keys are generated
# Each worker generates its own value for a key left unset. The admin key is always needed; the single API key
# only without a tenants file (with one, the file holds every key and a generated TORRES_API_KEY opens nothing).
_needed = {"TORRES_ADMIN_KEY": "admin_key", **({} if _explicit.get("tenants_file") else {"TORRES_API_KEY": "api_key"})}
_unset = [variable for variable, field in _needed.items() if not _explicit.get(field)]
if _unset:
    logging.getLogger("torres_game.wsgi").error(
        f"{' and '.join(_unset)} unset: each gunicorn worker generates its own, so requests will fail on the other"
        " workers. Set it in production (or give a tenants file, TORRES_TENANTS_FILE, for the API keys).")
app = create_app(Config.from_env())
# Close the pool and the notification listener while the worker's event loop still runs, not in a finalizer.
atexit.register(app.extensions["torres_game"].close)
