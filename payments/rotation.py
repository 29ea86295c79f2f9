"""Re-encryption of every encrypted column under the newest FIELD_ENCRYPTION_KEYS key (rotate_encryption_keys)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cryptography.fernet import Fernet, InvalidToken
from django.apps import apps
from django.conf import settings
from django.db import connection, transaction

from vault import crypto
from vault.maintenance import vacuum_analyze

# Every encrypted column in the project: output key -> (model label, field name). A test checks it is complete.
ENCRYPTED_COLUMNS: dict[str, tuple[str, str]] = {
    "paymentMethods": ("payments.PaymentMethod", "account_number"),
    "transactions": ("transactions.Transaction", "account_number"),
    "webhookSecrets": ("events.WebhookEndpoint", "secret"),
    "webhookPreviousSecrets": ("events.WebhookEndpoint", "previous_secret"),
    "changeNotices": ("transactions.ChangeNotice", "corrected_account_number"),
    "mandateEvidence": ("mandates.Mandate", "evidence"),
}


class UndecryptableValue(Exception):
    pass


@dataclass(frozen=True)
class _Column:
    key: str
    table: str
    column: str

    @classmethod
    def of(cls, key: str, label: str, field_name: str) -> _Column:
        model = apps.get_model(label)
        return cls(key=key, table=model._meta.db_table, column=model._meta.get_field(field_name).column)


def _rotate_chunk(column: _Column, rows: list[tuple[int, str]], newest: Fernet) -> int:
    qn = connection.ops.quote_name
    rewritten = 0
    with transaction.atomic(), connection.cursor() as cursor:
        for pk, token in rows:
            try:
                newest.decrypt(token.encode())
                continue  # already under the newest key: a rerun changes nothing
            except InvalidToken:
                pass
            try:
                rotated = crypto.rotate(token)
            except InvalidToken:
                raise UndecryptableValue(f"{column.key} row id={pk} cannot be read with any configured key") from None
            # Compare-and-set: a value rewritten meanwhile is left alone.
            cursor.execute(
                f"UPDATE {qn(column.table)} SET {qn(column.column)} = %s WHERE id = %s AND {qn(column.column)} = %s",  # noqa: S608 - names from model meta
                [rotated, pk, token],
            )
            rewritten += cursor.rowcount
    return rewritten


def encrypted_values_rotate(
    *, chunk_size: int = 500, progress: Callable[[str, int], Callable[[int], None]] | None = None
) -> dict[str, int]:
    """Re-encrypt every encrypted column under the newest FIELD_ENCRYPTION_KEYS key, reading raw ciphertext in
    id-ordered chunks (one short transaction each). Returns rows rewritten per column key; a rerun returns zeros."""
    newest = Fernet(settings.FIELD_ENCRYPTION_KEYS[0].strip().encode())
    qn = connection.ops.quote_name
    counts: dict[str, int] = {}
    for key, (label, field_name) in ENCRYPTED_COLUMNS.items():
        column = _Column.of(key, label, field_name)
        where = f"{qn(column.column)} IS NOT NULL AND {qn(column.column)} <> ''"
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT COUNT(*) FROM {qn(column.table)} WHERE {where}")  # noqa: S608
            total = cursor.fetchone()[0]
        advance = progress(key, total) if progress else (lambda n: None)
        counts[key], last_id = 0, 0
        while True:
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT id, {qn(column.column)} FROM {qn(column.table)} "  # noqa: S608
                    f"WHERE id > %s AND {where} ORDER BY id LIMIT %s",
                    [last_id, chunk_size],
                )
                rows = cursor.fetchall()
            if not rows:
                break
            counts[key] += _rotate_chunk(column, rows, newest)
            last_id = rows[-1][0]
            advance(len(rows))
    # A rotation rewrites every row: leave the rewritten tables vacuumed, as any bulk load (vault.maintenance).
    vacuum_analyze(apps.get_model(label) for key, (label, _) in ENCRYPTED_COLUMNS.items() if counts[key])
    return counts
