# syntax=docker/dockerfile:1
# One image for every component; the command picks which one runs (infra/compose.yaml gives each its command):
#   game service       gunicorn -c infra/gunicorn.conf.py torres_game.wsgi:app          (the default)
#   matchmaking HTTP   gunicorn -c infra/gunicorn.conf.py torres_matchmaking.wsgi:app
#   migrations         python -m torres_game migrate
#   webhook delivery   python -m torres_game webhooks
#   AI worker          celery -A torres_ai.celery_app worker --queues torres-ai,torres-ai-bulk
#   AI sweeper         python -m torres_ai.sweeper
#   matcher            python -m torres_matchmaking matcher --no-ratings
#   ratings consumer   python -m torres_matchmaking ratings
#   offline verifier   torres-audit verify ...
# `make image` builds it with buildah (docs/operations.md, "The image"); PYTHON_IMAGE may name any Debian bookworm
# image with Python 3.11 on the PATH as `python` (infra/image/make-base.sh makes one from Debian's packages).
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# --- build: compilers live only here (for any package without a wheel, and the compiled rules engine) ---
FROM ${PYTHON_IMAGE} AS build
# The official image carries Python's headers; Debian's python3 takes them from python3-dev.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && if ! python -c 'import os, sysconfig; assert os.path.exists(sysconfig.get_path("include") + "/Python.h")'; \
       then apt-get install -y --no-install-recommends python3-dev; fi \
    && rm -rf /var/lib/apt/lists/*
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# Two environments: /opt/venv is what ships (the runtime lock only); /opt/build holds mypyc and setuptools, which
# compile the engine and build the components' wheels, and stays behind in this stage.
RUN python -m venv /opt/venv && python -m venv /opt/build
WORKDIR /src
# The locks first, alone: their layers are reused until a pin changes. Every package is checked against its hash.
# A build host behind a TLS-inspecting proxy passes its CA bundle as the secret `pip-cert` (make image does): it is
# mounted for these steps only and never lands in a layer.
COPY requirements-runtime.lock requirements-build.lock ./
RUN --mount=type=secret,id=pip-cert \
    if [ -s /run/secrets/pip-cert ]; then export PIP_CERT=/run/secrets/pip-cert; fi \
    && /opt/venv/bin/pip install --no-deps --require-hashes -r requirements-runtime.lock \
    && /opt/build/bin/pip install --no-deps --require-hashes -r requirements-build.lock
# The compiled rules engine first (profile-guided; it lands inside the package, which ships it as package data),
# from the engine's sources and its build scripts alone: the costliest step, its layer is reused while they are
# unchanged, whatever else in shared/ or services/ changes. --require fails the build where it cannot be compiled,
# so an image never runs the pure engine unnoticed.
COPY shared/build_compiled.py shared/train_compiled.py ./shared/
COPY shared/torres_rules ./shared/torres_rules
RUN /opt/build/bin/python shared/build_compiled.py --require
# Then every component as a wheel (a normal install, as a portal's deploy gets it), the installers dropped from what
# ships, and the engine build the image will run. The context holds no compiled build (.dockerignore), so these
# copies leave the one just made in place.
COPY shared ./shared
COPY services ./services
RUN /opt/build/bin/pip wheel --no-deps --no-build-isolation --wheel-dir /wheels \
       ./shared ./shared/online ./shared/audit ./shared/service ./services/game ./services/ai-worker ./services/matchmaking \
    && /opt/venv/bin/pip install --no-deps --no-index /wheels/*.whl \
    && /opt/venv/bin/pip uninstall --yes --quiet pip setuptools \
    && /opt/venv/bin/python -c 'import torres_rules as t; print("rules engine:", t.ENGINE_BUILD); assert t.ENGINE_BUILD == "compiled"'

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
