# syntax=docker/dockerfile:1
# One image for every component; the command picks which one runs (see docs/operations.md):
#   game service       gunicorn -c infra/gunicorn.conf.py torres_game.wsgi:app          (the default)
#   matchmaking HTTP   gunicorn -c infra/gunicorn.conf.py torres_matchmaking.wsgi:app
#   migrations         python -m torres_game migrate
#   AI worker          celery -A torres_ai.celery_app worker --queues torres-ai,torres-ai-bulk
#   AI sweeper         python -m torres_ai.sweeper
#   matcher            python -m torres_matchmaking matcher --no-ratings
#   ratings consumer   python -m torres_matchmaking ratings
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# --- build: compilers live only here (for any package without a wheel, and the compiled rules engine) ---
FROM ${PYTHON_IMAGE} AS build
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PATH=/opt/venv/bin:$PATH
RUN python -m venv /opt/venv
WORKDIR /src
# The lock first, alone: its layer is reused until a pin changes. Every package is checked against its hash.
COPY requirements.lock ./
RUN pip install --no-deps --require-hashes -r requirements.lock
COPY shared ./shared
COPY services ./services
# The compiled rules engine first (profile-guided; it lands inside the package, which ships it as package data),
# then the packages; the step says which build it made, or why the image will run the pure one.
RUN python shared/build_compiled.py \
    && pip install --no-deps ./shared ./services/audit ./services/common ./services/game ./services/ai-worker ./services/matchmaking

# --- runtime: the virtual environment, the migrations and the gunicorn settings; no compilers, no pip cache ---
FROM ${PYTHON_IMAGE} AS runtime
RUN groupadd --system --gid 10001 torres \
    && useradd --system --uid 10001 --gid torres --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin torres
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY infra/migrations ./infra/migrations
COPY infra/gunicorn.conf.py ./infra/gunicorn.conf.py
COPY clients/web ./clients/web
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    TORRES_MIGRATIONS_DIR=/app/infra/migrations \
    TORRES_WEB_DIR=/app/clients/web \
    TORRES_AUTO_MIGRATE=0 \
    GUNICORN_WORKER_TMP_DIR=/dev/shm \
    PORT=8000
USER 10001:10001
EXPOSE 8000
# Probes the component's own health endpoint: HEALTHCHECK_URL (default http://127.0.0.1:$PORT/healthz);
# workers point it at their metrics port (compose does).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-m", "torres_service.healthcheck"]
CMD ["gunicorn", "-c", "infra/gunicorn.conf.py", "torres_game.wsgi:app"]
