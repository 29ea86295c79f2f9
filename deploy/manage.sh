#!/usr/bin/env bash
# manage.sh COMMAND [ARG...]: a manage.py command by hand, with the environment every unit reads
# (EnvironmentFile=/etc/vault/env: KEY=value lines; VAULT_ENV_FILE names another), from the code's folder. Run it
# as the service's user: `sudo -u vault /srv/vault/deploy/manage.sh createsuperuser`. docs/operations.md, "Install".
set -euo pipefail
cd "$(dirname "$0")/.."
set -a # every KEY=value line of the file is exported, as systemd passes it to the units
# shellcheck source=/dev/null
. "${VAULT_ENV_FILE:-/etc/vault/env}"
set +a
exec "${VAULT_PYTHON:-.venv/bin/python}" manage.py "$@"
