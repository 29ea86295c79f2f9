#!/usr/bin/env bash
# Scale-out on real engines (CONTRACT 8), sourced by .ci/run: pgbouncer in transaction mode in front of the
# primary, and a streaming replica made with pg_basebackup. Both run on ports picked at run time, from a scratch
# directory owned by the postgres user (neither may run as root); scale_out_stop removes everything.
PRIMARY_HOST=127.0.0.1
PRIMARY_PORT=5432
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
SCALE_OUT_DIR=$(mktemp -d /tmp/ci-scale-out.XXXXXX)
chmod 755 "$SCALE_OUT_DIR"

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pgbouncer_install() {
  command -v pgbouncer >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null; }
}

pgbouncer_start() {
  PGBOUNCER_PORT=$(free_port)
  cat >"$SCALE_OUT_DIR/pgbouncer.ini" <<CONF
[databases]
* = host=$PRIMARY_HOST port=$PRIMARY_PORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGBOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $SCALE_OUT_DIR/userlist.txt
pool_mode = transaction
max_client_conn = 500
default_pool_size = 40
ignore_startup_parameters = extra_float_digits
pidfile = $SCALE_OUT_DIR/pgbouncer.pid
logfile = $SCALE_OUT_DIR/pgbouncer.log
CONF
  echo '"postgres" ""' >"$SCALE_OUT_DIR/userlist.txt"
  [ "$(id -u)" = 0 ] && chown -R postgres "$SCALE_OUT_DIR"
  as_postgres pgbouncer -d "$SCALE_OUT_DIR/pgbouncer.ini"
  for _ in $(seq 1 50); do pg_isready -h 127.0.0.1 -p "$PGBOUNCER_PORT" -q && return 0; sleep 0.1; done
  echo "pgbouncer did not start" >&2
  cat "$SCALE_OUT_DIR/pgbouncer.log" >&2
  return 1
}

replica_start() {
  REPLICA_PORT=$(free_port)
  local hba
  hba=$(psql -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U postgres -Atc "SHOW hba_file")
  if ! grep -Eq '^host[[:space:]]+replication[[:space:]]' "$hba"; then
    # pg_basebackup and the standby connect as replication clients, which an `all` database line does not match.
    echo "host replication all 127.0.0.1/32 trust" >>"$hba"
    psql -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U postgres -qAtc "SELECT pg_reload_conf()" >/dev/null
  fi
  local data="$SCALE_OUT_DIR/replica" connections
  # A standby refuses to start with fewer connections than its primary.
  connections=$(psql -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U postgres -Atc "SHOW max_connections")
  [ "$(id -u)" = 0 ] && chown -R postgres "$SCALE_OUT_DIR"
  as_postgres pg_basebackup -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U postgres -D "$data" -R -X stream -c fast
  # Debian keeps the primary's configuration outside its data directory: the replica gets its own.
  as_postgres sh -c "cat >>'$data/postgresql.conf' <<CONF
port = $REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$SCALE_OUT_DIR'
hot_standby = on
max_connections = $connections
shared_buffers = 32MB
CONF
printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' >'$data/pg_hba.conf'
touch '$data/pg_ident.conf'"
  as_postgres "$PG_BIN/pg_ctl" -D "$data" -l "$SCALE_OUT_DIR/replica.log" -w -t 60 start >/dev/null
}

replica_stop() {
  as_postgres "$PG_BIN/pg_ctl" -D "$SCALE_OUT_DIR/replica" -m fast -w stop >/dev/null 2>&1 || true
}

scale_out_stop() {
  replica_stop
  [ -f "$SCALE_OUT_DIR/pgbouncer.pid" ] && kill "$(cat "$SCALE_OUT_DIR/pgbouncer.pid")" 2>/dev/null
  rm -rf "$SCALE_OUT_DIR"
}
