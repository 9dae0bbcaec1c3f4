# The two commands: `make run` (the whole system with demo data) and `make test` (the suite).
SHELL := /bin/bash
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
PYTHON ?= python3
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: run test lint format bench-fill bench clean

$(BIN)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
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
	$(PY) manage.py seed_demo_draws
	@echo ""
	@echo "  Promotions desk: http://127.0.0.1:$(PORT)/   (web, Celery worker and beat start below; Ctrl-C stops all)"
	@echo ""
	exec $(BIN)/honcho start -f Procfile

test: export APP_ENV = test
test: $(BIN)/.installed
	scripts/ensure-services
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(PY) manage.py check
	$(PY) manage.py makemigrations --check --dry-run
	$(BIN)/pytest

lint: $(BIN)/.installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf var/ .pytest_cache
