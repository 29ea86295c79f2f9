#!/usr/bin/env bash
# restart-always.sh CMD [ARG...]: runs CMD, and again RESTART_SEC seconds (default 5) after each exit, whatever its
# status, as systemd's Restart=always does (deploy/systemd/vault-worker@.service) where there is no systemd: `make run`
# and the CI fault test (.ci/faults.sh) supervise `run_worker` with it. SIGTERM or SIGINT stop CMD and the loop.
set -u
child=
stopping=
stop() {
  stopping=1
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
}
trap stop TERM INT
while [ -z "$stopping" ]; do
  "$@" &
  child=$!
  wait "$child"
  status=$?
  # `wait` returns early when a trapped signal arrives: wait again for the child to finish stopping.
  while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done
  child=
  [ -n "$stopping" ] && break
  echo "restart-always: $1 exited with status $status; starting it again in ${RESTART_SEC:-5} s" >&2
  sleep "${RESTART_SEC:-5}" &
  wait $! 2>/dev/null
done
exit 0
