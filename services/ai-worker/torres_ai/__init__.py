"""Torres AI: bots (``torres_ai.bots``) and the Celery workers that play AI seats for the game service."""
