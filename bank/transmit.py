"""`transmit_files`: every written live NACHA file not yet on the bank's server goes there over SFTP, as
`NAME.part`, renamed to `NAME`, then read back (size and SHA-256) before it is recorded as transmitted.

The remote name is fixed when the file's record is made and looked for before every upload: a run that stopped
after the rename (a kill, a timeout waiting for an answer) leaves the file there, and the next run reads it back
and records it instead of sending it again. A file the server holds with other content (a write it accepted and
did not store, moov-io/achgateway#150) is removed there and sent again by the next run. One run at a time."""

from __future__ import annotations

import hashlib
import logging
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import paramiko
from django.db.models import F
from django.utils import timezone

from bank.connection import BankConnectionError, BankSettings, bank_settings, describe, sftp_session
from bank.models import BankFile, BankFileStatus
from bank.state import BankFileEvent, bank_file_move
from transactions.models import OriginationFile, Transaction
from vault.records import iso_utc
from vault.threads import HeldLock, serialized

logger = logging.getLogger("bank")

TRANSMIT_LOCK_KEY = zlib.crc32(b"bank.transmit_files")
READ_CHUNK = 1 << 20
ERROR_WIDTH = BankFile._meta.get_field("last_error").max_length


class TransferMismatch(Exception):
    """What the server holds under the file's name is not the file."""


class MaybeAtBank(Exception):
    """The file was renamed into place by an earlier run and is gone from the server: the bank may have it."""


@dataclass
class TransmitResult:
    transmitted: list[str] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"transmitted": self.transmitted, "failed": self.failed}


def bank_files_record() -> None:
    """A BankFile for every live NACHA file `originate` wrote that has none yet (sandbox files never go to a bank):
    pending, or `outside` when it was written while no bank connection was set (the operator carries such a file)
    or its entries already settled (ACH review 2026-12-07 H4): an outside file goes only by an operator's action."""
    written = OriginationFile.objects.filter(is_sandbox=False, building=False, bank_file__isnull=True).exclude(
        sha256=""
    )
    for origination_file in written.order_by("pk"):
        settled = Transaction.objects.filter(batch__origination_file=origination_file, settlement__isnull=False)
        outside = not origination_file.awaiting_bank or settled.exists()
        BankFile.objects.get_or_create(
            origination_file=origination_file,
            defaults={
                "name": Path(origination_file.path).name,
                "status": BankFileStatus.OUTSIDE if outside else BankFileStatus.PENDING,
            },
        )


def _remote_digest(sftp: paramiko.SFTPClient, remote: str) -> tuple[int, str] | None:
    """(size, SHA-256) of what the server holds under `remote`, read back whole; None when there is nothing."""
    try:
        handle = sftp.open(remote, "rb")
    except FileNotFoundError:
        return None
    digest, size = hashlib.sha256(), 0
    with handle:
        handle.prefetch()
        while chunk := handle.read(READ_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def _upload(sftp: paramiko.SFTPClient, local: Path, remote: str, bank_file: BankFile, lock: HeldLock) -> None:
    part = f"{remote}.part"
    try:
        sftp.remove(part)  # what a run that stopped mid-upload left
    except FileNotFoundError:
        pass
    with local.open("rb") as handle:
        sftp.putfo(handle, part, confirm=False)
    lock.check()
    # Recorded (committed) before the rename: from then on the bank may hold the file, and may take it away.
    BankFile.objects.filter(pk=bank_file.pk).update(renamed_at=timezone.now())
    sftp.rename(part, remote)


def _exists(sftp: paramiko.SFTPClient, remote: str) -> bool:
    try:
        sftp.stat(remote)
    except FileNotFoundError:
        return False
    return True


def _transmit(
    sftp: paramiko.SFTPClient, bank_file: BankFile, config: BankSettings, at: datetime, lock: HeldLock
) -> None:
    origination_file = bank_file.origination_file
    local = Path(origination_file.path)
    if origination_file.purged_at is not None or not local.is_file():
        raise FileNotFoundError(f"the file is not in the outbound folder ({local.name}); nothing was sent")
    lock.check()
    BankFile.objects.filter(pk=bank_file.pk).update(attempts=F("attempts") + 1, last_attempt_at=at)
    remote = f"{config.outbound_dir}/{bank_file.name}"
    expected = (local.stat().st_size, origination_file.sha256)
    held = _remote_digest(sftp, remote)
    if held is None:
        if bank_file.renamed_at is not None and not _exists(sftp, f"{remote}.part"):
            raise MaybeAtBank(
                f"an earlier run renamed it into place on the bank's server ({iso_utc(bank_file.renamed_at)}) and "
                "the server no longer holds it (a bank that takes files away): not sent again; ask the bank whether "
                "it has it, then say so in the admin (Bank files)"
            )
        _upload(sftp, local, remote, bank_file, lock)
        held = _remote_digest(sftp, remote)
        if held is None:  # renamed into place, and gone at once: a bank that takes its files away has it
            raise MaybeAtBank(
                "renamed into place on the bank's server and gone from it before it could be read back (a bank "
                "that takes files away): not sent again; its acknowledgement records it, or ask the bank whether it "
                "has it and say so in the admin (Bank files)"
            )
    if held != expected:
        sftp.remove(remote)
        BankFile.objects.filter(pk=bank_file.pk).update(renamed_at=None)  # proven not at the bank: removed there
        size = "nothing" if held is None else f"{held[0]} bytes"
        raise TransferMismatch(
            f"read back {size} of {expected[0]} (SHA-256 differs): the server did not keep the file; removed "
            "there, the next run sends it again"
        )
    lock.check()
    bank_file_move(bank_file=bank_file, event=BankFileEvent.TRANSMIT, transmitted_at=at, last_error="")
    logger.info("transmitted %s (%s bytes)", bank_file.name, expected[0])


def _failed(result: TransmitResult, bank_file: BankFile, error: str) -> None:
    BankFile.objects.filter(pk=bank_file.pk).update(last_error=error[:ERROR_WIDTH])
    result.failed.append({"name": bank_file.name, "error": error})
    logger.error("not transmitted %s: %s", bank_file.name, error)


def files_transmit(*, at: datetime) -> TransmitResult:
    """Raises BankNotConfigured (before anything is touched) when the connection's settings are missing."""
    config = bank_settings()
    result = TransmitResult()
    with serialized(TRANSMIT_LOCK_KEY) as lock:
        bank_files_record()
        pending = list(
            BankFile.objects.filter(status=BankFileStatus.PENDING).select_related("origination_file").order_by("pk")
        )
        if not pending:
            return result
        try:
            with sftp_session(config) as sftp:
                broken = False
                for bank_file in pending:
                    if broken:
                        # A session that timed out or dropped may still answer the request it gave up on.
                        _failed(result, bank_file, "not tried: the session with the bank failed on an earlier file")
                        continue
                    try:
                        _transmit(sftp, bank_file, config, at, lock)
                    except (TransferMismatch, MaybeAtBank) as exc:
                        _failed(result, bank_file, describe(exc))
                        continue
                    except (OSError, EOFError, paramiko.SSHException) as exc:
                        _failed(result, bank_file, describe(exc))
                        broken = not isinstance(exc, FileNotFoundError)
                        continue
                    result.transmitted.append(bank_file.name)
        except BankConnectionError as exc:
            for bank_file in pending:
                if bank_file.name not in result.transmitted and not any(
                    failure["name"] == bank_file.name for failure in result.failed
                ):
                    _failed(result, bank_file, str(exc))
    return result
