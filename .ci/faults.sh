#!/usr/bin/env bash
# Faults proven in CI (issue 25): tests/faults on a throwaway PostgreSQL cluster of its own (initdb on a free port,
# from a scratch directory owned by the postgres user), which the test restarts and kill -9s. Everything is removed
# afterwards. Run by .ci/run; alone: .ci/faults.sh (after make install).
set -euo pipefail
cd "$(dirname "$0")/.."

PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
FAULTS_DIR=$(mktemp -d /tmp/ci-faults.XXXXXX)
chmod 755 "$FAULTS_DIR"

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

faults_stop() {
  as_postgres "$PG_BIN/pg_ctl" -D "$FAULTS_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$FAULTS_DIR"
}
trap faults_stop EXIT

FAULTS_PG_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
[ "$(id -u)" = 0 ] && chown postgres "$FAULTS_DIR"
as_postgres "$PG_BIN/initdb" --no-sync -D "$FAULTS_DIR/data" -U postgres -A trust >/dev/null
# No fsync: the machine does not crash here, only PostgreSQL does (kill -9 leaves the OS cache, so crash recovery
# still has every committed transaction). synchronous_commit stays on: off, a commit is answered before its WAL
# leaves PostgreSQL's own memory, and a kill -9 loses charges the client was told were made (seen in CI).
as_postgres sh -c "cat >>'$FAULTS_DIR/data/postgresql.conf' <<CONF
port = $FAULTS_PG_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$FAULTS_DIR'
max_connections = 50
shared_buffers = 32MB
fsync = off
full_page_writes = off
CONF"
as_postgres "$PG_BIN/pg_ctl" -D "$FAULTS_DIR/data" -l "$FAULTS_DIR/postgresql.log" -w -t 60 start >/dev/null

FAULTS_PG_PORT=$FAULTS_PG_PORT FAULTS_PG_DATA="$FAULTS_DIR/data" FAULTS_PG_LOG="$FAULTS_DIR/postgresql.log" \
  FAULTS_PG_BIN="$PG_BIN" DEBUG=1 \
  .venv/bin/pytest -p no:cacheprovider -v -s tests/faults "$@"
