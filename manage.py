#!/usr/bin/env python
"""Django's command-line entry point. A missing setting, or a database that refuses or drops the connection, ends
any command with one line on stderr and exit status 1, as any other bad input does, never a traceback."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line
    from django.db import InterfaceError, OperationalError

    try:
        settings.INSTALLED_APPS  # noqa: B018 - loads the settings: a missing setting is one line, not a traceback
    except ImproperlyConfigured as exc:
        sys.exit(
            f"ImproperlyConfigured: {exc}. In development export DEBUG=1 (make does); "
            "in production set it in the environment (docs/configuration.md)."
        )
    try:
        execute_from_command_line(sys.argv)
    except (OperationalError, InterfaceError) as exc:
        reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        sys.stderr.write(f"CommandError: database unavailable: {reason}\n")
        sys.exit(1)
