"""gunicorn entry point: ``gunicorn -w 4 -k gthread --threads 8 'torres_game.wsgi:app'``.

Configuration comes from the environment (see ``config.py``). Use threaded workers when clients
long-poll ``/wait`` or hold ``/stream`` open, since each open request occupies a thread.
"""

from torres_game.app import create_app
from torres_game.config import Config
from torres_game.logs import configure_logging

configure_logging()
app = create_app(Config.from_env())
