# make run: the service with demo data on SQLite at http://127.0.0.1:8000 (GUNICORN_BIND=127.0.0.1:8121 make run: elsewhere)
# make test: the test suite (SQLite, or PostgreSQL when DATABASE_URL is set), one process per core (pytest-xdist)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export DEBUG ?= 1

.PHONY: run test lint install bytecode migrate clean

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

install: $(VENV)/.installed bytecode

# The project's modules compiled ahead, as pip does for the libraries: the deployed units run with a read-only
# /srv/vault (ProtectSystem=strict), where Python cannot write what it compiles, so every command would compile
# each module it imports again at each start (about 0.3 s of CPU an `import_returns`). Only what changed is redone.
bytecode: $(VENV)/.installed
	$(PY) -m compileall -q -x '(^|/)(\.venv|var)/' .

migrate: install
	mkdir -p var
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0

# One background worker (webhook delivery) runs beside gunicorn and stops with it; it is started again 5 s after
# anything ends it (deploy/restart-always.sh, as systemd's Restart=always in deploy/systemd/vault-worker@.service).
run: migrate
	$(PY) manage.py bootstrap_demo
	deploy/restart-always.sh $(PY) manage.py run_worker & worker=$$!; trap 'kill $$worker' EXIT INT TERM; \
	$(VENV)/bin/gunicorn --config gunicorn.conf.py

# pytest keeps the test modules it rewrote for the next run only if Python may write bytecode (some machines say not to)
test: install
	env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/pytest -n auto

lint: install
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports  # the layers in .importlinter

clean:
	rm -rf $(VENV) var
