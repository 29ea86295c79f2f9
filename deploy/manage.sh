#!/usr/bin/env bash
# manage.sh COMMAND [ARG...]: a manage.py command by hand, with the environment every unit reads
# (EnvironmentFile=/etc/vault/env; VAULT_ENV_FILE names another), from the code's folder. Run it as the service's
# user: `sudo -u vault /srv/vault/deploy/manage.sh createsuperuser`. docs/operations.md, "Install".
# The file is read as systemd reads it (vault/envfile.py), never evaluated by a shell: a value with spaces, such as
# BANK_SFTP_HOST_KEY=ssh-ed25519 AAAA..., needs no quotes, and quotes are taken off as systemd takes them off.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${VAULT_PYTHON:-.venv/bin/python}" -m vault.envfile "${VAULT_ENV_FILE:-/etc/vault/env}" manage.py "$@"
