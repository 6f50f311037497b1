# One entry point for every task. `make test` and `make run` work on a fresh machine with python3 >= 3.11.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
UV_VERSION := 0.13.9
STAMP  := $(VENV)/.installed
COMPONENTS := shared shared/online shared/audit shared/service clients/terminal services/game services/ai-worker services/matchmaking \
	sdk/python
# The compiled (mypyc) rules engine, built into the package (torres_rules/_compiled) and rebuilt whenever one of
# its sources changes; its digest file is written last. torres_rules loads it only while the digest matches
# (shared/torres_rules/_loader.py).
COMPILED_RULES := shared/torres_rules/_compiled/SOURCES.sha256
RULES_SOURCES  := $(filter-out %/__init__.py %/_loader.py,$(wildcard shared/torres_rules/*.py))

.PHONY: install test lint pytest run play play-remote migrate bench lock clean cluster policy-tools sdk sdk-tools image pg-ha redis-ha faults

# The virtual environment is rebuilt whenever the lock file or a component's pyproject changes. Its packages are
# compiled to bytecode once, here: uv installs without it, and where PYTHONDONTWRITEBYTECODE is set no process
# writes it, so each one would compile every module it imports from source again (one to two seconds of CPU
# for a game service).
$(STAMP): requirements.lock $(wildcard */pyproject.toml */*/pyproject.toml)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check uv==$(UV_VERSION)
	$(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python --require-hashes -r requirements.lock
	$(BIN)/uv pip install -q --python $(BIN)/python --no-deps $(COMPONENTS:%=-e ./%)
	touch $(STAMP)

# Exits 0 without a build where compilation is impossible (no compiler or headers): the pure build then runs.
$(COMPILED_RULES): $(STAMP) $(RULES_SOURCES) shared/build_compiled.py shared/train_compiled.py
	$(BIN)/python shared/build_compiled.py

install: $(STAMP) $(COMPILED_RULES)

# checkov (the Kubernetes policy check in tests/deploy) pins old releases of packages the services use, so it
# lives in its own virtual environment, installed from its own hashed lock.
CHECKOV_STAMP := .tools/checkov/.installed
$(CHECKOV_STAMP): infra/tools/checkov.lock $(STAMP)
	$(BIN)/uv venv -q --allow-existing --python $(BIN)/python .tools/checkov
	$(BIN)/uv pip install -q --compile-bytecode --python .tools/checkov/bin/python --require-hashes -r infra/tools/checkov.lock
	touch $(CHECKOV_STAMP)

policy-tools: $(CHECKOV_STAMP)

# The TypeScript SDK's generator and test tools (openapi-typescript, openapi-fetch, typescript, tsx), installed
# from sdk/typescript/package-lock.json. `make test` installs them where npm is found; without npm the SDK tests
# skip (a failure under TORRES_REQUIRE_SERVICES=1: .ci/run installs Node.js).
NODE_STAMP := sdk/typescript/node_modules/.installed
$(NODE_STAMP): sdk/typescript/package-lock.json
	npm ci --prefix sdk/typescript --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

sdk-tools:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) -s --no-print-directory $(NODE_STAMP); \
	else echo "npm not found: the SDK tests (tests/sdk) will skip"; fi

# Regenerate the typed SDKs (docs/sdk.md): the services' OpenAPI documents into sdk/openapi/, then the Python
# packages in sdk/python/ and the TypeScript types in sdk/typescript/src/ from them. Commit what changed;
# `make test` fails while they differ (tests/sdk/test_generation.py).
sdk: $(STAMP) $(NODE_STAMP)
	$(BIN)/python sdk/generate.py

# The image (Dockerfile) built with buildah, as root, on a Debian-made base or PYTHON_IMAGE (docs/operations.md).
image:
	infra/image/build.sh

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy --strict shared/torres_rules
	MYPYPATH=shared $(BIN)/mypy --strict shared/online/torres_online shared/audit/torres_audit

# Everything on the compiled rules engine (where it could be built), the rules suite on the pure one too (one test
# runs it in a process of its own: tests/rules/test_pure_build.py), on PYTEST_WORKERS pytest-xdist workers: most
# tests wait on servers they start, so more workers than cores pay. A module's tests share a worker (--dist
# loadscope), and so does each set of tests that shares one costly fixture (tests/conftest.py, SHARED); each
# worker has Redis databases of its own, 2 below the last worker's from TEST_REDIS_URL's and TEST_MM_REDIS_URL's
# (13 and 14: up to 7 workers). PYTEST_WORKERS=0: one process; unset, as many as the test PostgreSQL's
# max_connections carries, at most 4 (tests/workers.py).
# The tests write bytecode even where PYTHONDONTWRITEBYTECODE is set (it is set empty here): every xdist worker
# collects every test module, and the services, workers and CLIs the tests start import the checkout's own
# modules hundreds of times; without a cache each of them compiles, and pytest rewrites the asserts of, every
# module again. The caches are __pycache__ folders beside the sources, ignored by git and the image build.
XDIST = -n $$($(BIN)/python tests/workers.py) --dist loadscope --no-loadscope-reorder
pytest: install $(CHECKOV_STAMP) sdk-tools
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest $(XDIST)

test: lint pytest

# The whole system on embedded defaults (game service + matchmaker + in-process AI) and a game in this terminal.
run: $(STAMP)
	$(BIN)/python infra/local_stack.py $(ARGS)

# A terminal game in this process against random-move bots (no services).
play: $(STAMP)
	$(BIN)/python -m torres_terminal $(ARGS)

# A terminal game on a running game service (see the address and key `make run` prints).
play-remote: $(STAMP)
	$(BIN)/python -m torres_terminal --server $(SERVER) --api-key "$(TORRES_API_KEY)" $(ARGS)

# Apply the game service's SQL migrations to DATABASE_URL (or the embedded SQLite file).
migrate: $(STAMP)
	$(BIN)/python -m torres_game migrate

# The production processes on the local PostgreSQL and Redis: 2 game replicas, 2 AI workers, 2 matchers, the
# ratings consumer and the sweeper, on free loopback ports (docs/operations.md). Ctrl-C stops them all.
cluster: $(STAMP)
	$(BIN)/python infra/local_cluster.py $(ARGS)

# An HA PostgreSQL stand-in (etcd, 3 Patroni nodes in synchronous_mode, HAProxy) on loopback, as root; Ctrl-C stops
# it (docs/operations.md, "Failover"). ARGS=--async: asynchronous replication.
pg-ha: $(STAMP)
	$(BIN)/python infra/ha/pg_ha.py $(ARGS)

# A Redis master, its replica and three Sentinels on loopback, named by one redis+sentinel:// URL; Ctrl-C stops it.
redis-ha: $(STAMP)
	$(BIN)/python infra/ha/redis_ha.py

# The fault suite (docs/operations.md, "Failover"), as root: the production processes on the HA stand-ins, in a
# network namespace of its own, under load while a nemesis breaks PostgreSQL (TORRES_FAULTS_PG faults, 20), Redis
# (TORRES_FAULTS_REDIS, 5) and the game service (TORRES_FAULTS_ROLLING rolling restarts, 2); then the checker.
# TORRES_FAULTS_ASYNC=1: asynchronous replication. The focused failover tests (tests/faults) run in `make test`.
faults: install
	TORRES_FAULTS=1 TORRES_FAULTS_REPORT=$${TORRES_FAULTS_REPORT:-faults-report.json} \
		$(BIN)/pytest tests/faults/test_fault_suite.py -q -s -p no:randomly

# Every benchmark but bench/card_history_bench.py (a long AI-strength match; its command is in performance.md).
bench: install
	$(BIN)/python bench/rules_bench.py
	$(BIN)/python bench/rules_instructions.py
	$(BIN)/python bench/ai_search_bench.py
	$(BIN)/python bench/ai_bench.py throughput
	$(BIN)/python bench/ai_bench.py latency
	$(BIN)/python bench/game_bench.py
	$(BIN)/python bench/translog_bench.py
	$(BIN)/python bench/game_bench.py --only http --compare-worker-classes 6
	$(BIN)/python bench/push_bench.py
	$(BIN)/python bench/write_bench.py
	$(BIN)/python bench/matchmaking_bench.py
	$(BIN)/python bench/edge_bench.py
	$(BIN)/python bench/audit_bench.py
	$(BIN)/python bench/webhook_bench.py
	$(BIN)/python bench/webhook_cpu_bench.py

# Three hashed locks at one set of pins: requirements.lock (development: the runtime and every tool; make install),
# requirements-runtime.lock (what the image and every deployed process install) and requirements-build.lock (the
# image's build stage: mypyc and setuptools), the last two constrained to the first. The project's own components
# (-e lines, with their annotations) are left out: they are installed from the checkout or as wheels. Each lock is
# compiled onto itself (-o), so uv keeps every pin it holds and resolves only what the .in files add or change
# (`uv pip compile --upgrade-package NAME` moves one on purpose).
LOCK := $(BIN)/uv pip compile -q --generate-hashes --no-emit-index-url --no-header --python-version 3.11
NO_EDITABLES := awk '/^-e /{s=1; next} s && /^    \#/{next} {s=0; print}'
lock: $(STAMP)
	$(LOCK) requirements.in -o requirements.lock
	$(NO_EDITABLES) requirements.lock > requirements.lock.new && mv requirements.lock.new requirements.lock
	$(LOCK) requirements-runtime.in -c requirements.lock -o requirements-runtime.lock
	$(NO_EDITABLES) requirements-runtime.lock > requirements-runtime.lock.new
	mv requirements-runtime.lock.new requirements-runtime.lock
	$(LOCK) requirements-build.in -c requirements.lock -o requirements-build.lock
	$(LOCK) infra/tools/checkov.in -o infra/tools/checkov.lock

clean:
	rm -rf $(VENV) .tools sdk/typescript/node_modules .pytest_cache .ruff_cache .mypy_cache .hypothesis data shared/build shared/torres_rules/_compiled
