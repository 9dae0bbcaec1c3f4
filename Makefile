# The two commands: `make run` (the whole system with demo data) and `make test` (the suite).
SHELL := /bin/bash
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
PYTHON ?= python3
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: run test system-packages lint format bench-fill bench clean
# Prerequisites are made in the order written: `make test` installs the system packages first.
.NOTPARALLEL:

$(BIN)/.installed: requirements.txt
	$(PY) -m pip --version >/dev/null 2>&1 || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

# Zero setup: SQLite and a filesystem broker under var/ unless DATABASE_URL and
# CELERY_BROKER_URL point at PostgreSQL and Redis.
run: export APP_ENV ?= development
run: export PORT ?= 8000
run: $(BIN)/.installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	$(PY) manage.py load_seed_promotions
	$(PY) manage.py load_seed_boards
	$(PY) manage.py seed_demo_draws
	$(PY) manage.py seed_demo_registers
	$(PY) manage.py seed_demo_prizes
	@echo ""
	@echo "  Promotions desk: http://127.0.0.1:$(PORT)/   (web, Celery worker and beat start below; Ctrl-C stops all)"
	@echo ""
	exec $(BIN)/honcho start -f Procfile

# The suite runs in TEST_PROCESSES pytest-xdist processes, each on its own test database
# (test_promodesk_gw0, ...) and Redis database (testing/worker.py); --dist loadfile keeps a
# module in one process, so a module's Celery worker and Chromium start once, as in one process.
# It notes which tests read the time of day with no time of their own pinned
# (testing/clock_readers.py); those that need no browser and no worker run again with the clock
# at 03:00 and 23:50 Johannesburg (testing/clock.py): CI runs at whatever hour work stops.
TEST_PROCESSES ?= 2
test: export APP_ENV = test
test: system-packages $(BIN)/.installed
	scripts/ensure-services
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(PY) manage.py check
	$(PY) manage.py makemigrations --check --dry-run
	mkdir -p var && rm -f var/clock-readers.txt var/clock-readers-where.txt
	$(BIN)/pytest -n $(TEST_PROCESSES) --dist loadfile --durations=25 --clock-readers-out=var/clock-readers.txt
	PYTEST=$(BIN)/pytest CLOCK_READERS=var/clock-readers.txt scripts/clock-runs 03:00 23:50

# Chromium and the PDF libraries: installed when root with apt-get, else the command to run.
system-packages:
	scripts/ensure-system-packages

lint: $(BIN)/.installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf var/ .pytest_cache
