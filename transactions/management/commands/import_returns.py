"""python manage.py import_returns FILE: apply a NACHA (or CSV) return / notice-of-change file."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from transactions.ach.return_files import ReturnFileError, ReturnFileSource
from transactions.ach.returns import returns_import
from vault.commands import (
    LIFECYCLE_SYSTEM_CHECKS,
    add_at_argument,
    add_workers_argument,
    bulk_collector,
    emit,
    parse_at,
    progress_for,
    workers_of,
)

# The exit status of a refused file (not ours, damaged, malformed), apart from 1 (the database, an unreadable path):
# deploy/import-returns.sh moves such a file to quarantine/ and goes on with the next.
REFUSED_FILE_EXIT = 3


class Command(BaseCommand):
    requires_system_checks = LIFECYCLE_SYSTEM_CHECKS
    help = "Import an RDFI return / NOC file (NACHA or CSV); re-importing the same file changes nothing."

    def add_arguments(self, parser):
        parser.add_argument("file", help="path of the NACHA or CSV file")
        add_at_argument(parser)
        add_workers_argument(
            parser,
            help="processes applying companies at once, each with a connection (default: IMPORT_RETURNS_WORKERS, 2)",
        )

    def handle(self, *args, **options):
        path = Path(options["file"])
        workers = workers_of(options)
        with _open_regular_file(path) as handle, bulk_collector():
            try:
                summary = returns_import(
                    source=ReturnFileSource(handle),
                    filename=path.name,
                    at=parse_at(options["at"]),
                    progress=progress_for(self),
                    workers=workers,
                )
            except ReturnFileError as exc:  # the file itself is refused: the import unit quarantines it
                raise CommandError(f"{path.name}: {exc}", returncode=REFUSED_FILE_EXIT) from None
            except DatabaseError as exc:  # one line, never a traceback
                raise CommandError(
                    f"{path.name}: the database refused the import ({type(exc).__name__}); importing the same file"
                    " again applies what this run did not"
                ) from None
            except OSError as exc:
                raise CommandError(f"cannot read {path}: {exc.strerror}") from None
        emit(self, summary)


def _open_regular_file(path: Path) -> BinaryIO:
    """A regular file, read a pass at a time (never held whole): never through a symlink, and never a FIFO or
    device, which would hang the command or read what is not a bank file."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        reason = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
        raise CommandError(f"cannot read {path}: {reason}") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise CommandError(f"cannot read {path}: not a regular file")
    return os.fdopen(descriptor, "rb")
