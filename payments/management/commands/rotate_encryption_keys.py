"""Re-encrypt every encrypted value under the newest FIELD_ENCRYPTION_KEYS key; safe to run again."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from payments.rotation import UndecryptableValue, encrypted_values_rotate


class Command(BaseCommand):
    help = (
        "Re-encrypt saved account numbers and transaction account numbers under the first (newest) key of "
        'FIELD_ENCRYPTION_KEYS. Prints {"paymentMethods": n, "transactions": n}: rows rewritten. '
        "Older keys may be removed from FIELD_ENCRYPTION_KEYS once a run prints zeros."
    )

    def add_arguments(self, parser):
        parser.add_argument("--chunk-size", type=int, default=500, help="Rows per transaction (default 500).")

    def handle(self, *args, chunk_size: int, **options):
        if chunk_size < 1:
            raise CommandError("--chunk-size must be at least 1")
        bars: list[tqdm] = []

        def progress(key: str, total: int):
            bar = tqdm(total=total, desc=key, unit="row", file=sys.stderr, disable=options["verbosity"] == 0)
            bars.append(bar)
            return bar.update

        try:
            counts = encrypted_values_rotate(chunk_size=chunk_size, progress=progress)
        except UndecryptableValue as exc:
            raise CommandError(str(exc)) from None
        finally:
            for bar in bars:
                bar.close()
        self.stdout.write(json.dumps(counts))
