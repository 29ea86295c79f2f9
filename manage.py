#!/usr/bin/env python
"""Django's command-line entry point. A database that refuses or drops the connection ends any command with one
line on stderr and exit status 1, as any other bad input does (CommandError), never a traceback."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vault.settings")
    from django.core.management import execute_from_command_line
    from django.db import InterfaceError, OperationalError

    try:
        execute_from_command_line(sys.argv)
    except (OperationalError, InterfaceError) as exc:
        reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        sys.stderr.write(f"CommandError: database unavailable: {reason}\n")
        sys.exit(1)
