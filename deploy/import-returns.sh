#!/usr/bin/env bash
# import-returns.sh [INBOX]: imports every return/NOC file in INBOX (default VAR_DIR/inbox, VAR_DIR default var),
# oldest first, whatever its name (spaces, quotes, a leading dash). An imported file moves to INBOX/done/. A file
# import_returns refuses (exit 3: not a return file of ours, damaged, a malformed CSV) moves to INBOX/quarantine/ with
# its reason beside it (NAME.reason) and the next file is imported; the script then exits 1, so the unit shows failed.
# Any other failure (the database is down) stops here and leaves the file in INBOX for the next run.
# A run that imported every file (none is fine) is recorded for /metrics (vault_command_days_missed{command=
# "import_returns"}). Run by deploy/systemd/vault-import-returns.service; docs/operations.md, "Returns and notices of
# change".
set -u
inbox=${1:-${VAR_DIR:-var}/inbox}
python=${VAULT_PYTHON:-.venv/bin/python}
refused_exit=3 # import_returns' exit status for a refused file (transactions/management/commands/import_returns.py)
mkdir -p "$inbox/done" "$inbox/quarantine"
quarantined=0
while IFS= read -r -d '' entry; do
  file=${entry#* }
  name=${file##*/}
  # The summary (stdout) goes to the journal as it is; the one-line error (stderr) is kept as the reason.
  { reason=$("$python" manage.py import_returns -- "$file" 2>&1 >&3 3>&-); status=$?; } 3>&1
  if [ "$status" -eq 0 ]; then
    mv -f -- "$file" "$inbox/done/$name"
  elif [ "$status" -eq "$refused_exit" ]; then
    mv -f -- "$file" "$inbox/quarantine/$name"
    printf '%s\n' "$reason" >"$inbox/quarantine/$name.reason"
    echo "import-returns: $name refused, moved to quarantine/: $reason" >&2
    quarantined=1
  else
    echo "import-returns: $name not imported (exit $status), left in place for the next run: $reason" >&2
    exit "$status"
  fi
done < <(find "$inbox" -mindepth 1 -maxdepth 1 -type f -printf '%T@ %p\0' | sort -z -n)
if [ "$quarantined" -eq 0 ]; then
  "$python" manage.py record_run import_returns >/dev/null || exit
fi
exit "$quarantined"
