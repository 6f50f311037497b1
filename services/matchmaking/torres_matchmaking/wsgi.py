"""WSGI entry point for production servers: ``gunicorn torres_matchmaking.wsgi:app`` (REDIS_URL set)."""

from .app import create_app

app = create_app()
