"""`fetch_bank_files`: the files in the bank's outbox (BANK_INBOUND_DIR) are fetched, each recorded by name and
SHA-256 before it is applied (InboundFile; the same content under another name is a duplicate, never applied
again), then applied: acknowledgements (nacha/acknowledgements.py) answer the file they name, return and NOC files
go through `import_returns`' own service (`returns_import`), statements (BAI2, camt.053) through `import_statement`'s
(`statement_import`, reconciliation/). A transmitted file with no answer after
BANK_ACK_TIMEOUT_MINUTES becomes `unacknowledged`, also when the bank cannot be reached. One run at a time."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import paramiko
from django.conf import settings
from django.db import transaction

from bank.connection import BankConnectionError, BankSettings, bank_settings, describe, sftp_session
from bank.models import BankFile, BankFileStatus, InboundFile
from bank.state import BankFileEvent, bank_file_move
from nacha.acknowledgements import (
    Acknowledgement,
    AcknowledgementError,
    acknowledgement_read,
    looks_like_acknowledgement,
)
from reconciliation.formats import statement_format
from reconciliation.services import StatementRefused, statement_import
from transactions.ach.return_files import ReturnFileError, ReturnFileSource
from transactions.ach.returns import returns_import
from transactions.models import ChangeNotice, Transaction, TransactionReturn
from transactions.state import Actor
from vault.threads import serialized

logger = logging.getLogger("bank")

FETCH_LOCK_KEY = zlib.crc32(b"bank.fetch_bank_files")
FETCH_BANK_FILES = Actor.command("fetch_bank_files")
# What a name on the bank's server must look like before it names a file here.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,254}\Z", re.ASCII)
INBOUND_DIR_MODE, INBOUND_FILE_MODE = 0o700, 0o600
ERROR_WIDTH = InboundFile._meta.get_field("error").max_length
MAY_BE_INCOMPLETE = (
    "; it may be incomplete (the bank still writing it): fetched again on every run until it reads, or set aside "
    "in the admin (Inbound files)"
)
ANSWERED = (BankFileStatus.ACKNOWLEDGED, BankFileStatus.REJECTED, BankFileStatus.EXCEPTION)


@dataclass
class FetchResult:
    files: list[str] = field(default_factory=list)
    acknowledged: int = 0
    rejected: int = 0
    returns: int = 0
    notices: int = 0
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    refused: int = 0
    unacknowledged: list[str] = field(default_factory=list)
    rejected_files: list[str] = field(default_factory=list)
    contradicted: list[str] = field(default_factory=list)
    connection_error: str | None = None

    def as_json(self) -> dict:
        return {
            "files": self.files,
            "acknowledged": self.acknowledged,
            "rejected": self.rejected,
            "returns": self.returns,
            "notices": self.notices,
            "exceptions": self.exceptions,
        }

    def exception(self, name: str, reason: str, **more: Any) -> None:
        self.exceptions.append({"file": name, **more, "reason": reason})


def _download(sftp: paramiko.SFTPClient, remote: str, name: str) -> tuple[Path, str, int]:
    """The file, copied under INBOUND_DIR (0600) whole or not at all, with its SHA-256 and size."""
    directory = Path(settings.INBOUND_DIR)
    directory.mkdir(mode=INBOUND_DIR_MODE, parents=True, exist_ok=True)
    os.chmod(directory, INBOUND_DIR_MODE)
    local, partial = directory / name, directory / f".{name}.partial"
    digest, size = hashlib.sha256(), 0
    limit = settings.IMPORT_RETURNS_MAX_BYTES
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, INBOUND_FILE_MODE)
    try:
        with os.fdopen(descriptor, "wb") as out, sftp.open(remote, "rb") as handle:
            handle.prefetch()
            while chunk := handle.read(1 << 20):
                size += len(chunk)
                if size > limit:
                    raise ValueError(f"larger than IMPORT_RETURNS_MAX_BYTES ({limit} bytes)")
                digest.update(chunk)
                out.write(chunk)
        os.replace(partial, local)
    finally:
        partial.unlink(missing_ok=True)
    return local, digest.hexdigest(), size


def _recorded(
    name: str, digest: str, size: int, kind: str, at: datetime, *, refused: InboundFile | None = None
) -> InboundFile:
    """The file's record, being applied; or, when its content was fetched before under another name, a duplicate.
    A file refused before (half written when first read) keeps its record, now of what the server holds."""
    first = InboundFile.objects.filter(sha256=digest, duplicate_of__isnull=True).exclude(name=name).first()
    fields = {
        "sha256": digest,
        "size": size,
        "kind": kind,
        "state": InboundFile.State.DUPLICATE if first else InboundFile.State.APPLYING,
        "duplicate_of": first,
        "error": "",
    }
    if refused is None:
        return InboundFile.objects.create(name=name, received_at=at, **fields)
    for field_name, value in fields.items():
        setattr(refused, field_name, value)
    refused.save(update_fields=list(fields))
    return refused


def _finish(inbound: InboundFile, state: str, at: datetime, *, summary: dict | None = None, error: str = "") -> None:
    inbound.state, inbound.applied_at, inbound.error = state, at, error[:ERROR_WIDTH]
    inbound.summary = summary or {}
    inbound.save(update_fields=["state", "applied_at", "error", "summary"])


def _acknowledgement_apply(inbound: InboundFile, data: bytes, at: datetime, result: FetchResult) -> None:
    try:
        ack = acknowledgement_read(data)
    except AcknowledgementError as exc:
        _finish(inbound, InboundFile.State.REFUSED, at, error=str(exc))
        result.refused += 1
        result.exception(inbound.name, f"not an acknowledgement this service reads: {exc}{MAY_BE_INCOMPLETE}")
        return
    bank_file = BankFile.objects.filter(name=ack.file).select_related("origination_file").first()
    if bank_file is None:
        _finish(inbound, InboundFile.State.APPLIED, at, error="acknowledges a file we never sent")
        result.exception(inbound.name, f"acknowledges {ack.file[:120]!r}, a file we never sent")
        return
    if bank_file.status == BankFileStatus.PENDING and bank_file.renamed_at is not None:
        # A run renamed it into place and stopped before recording it, and the bank took it away (reliability B4):
        # its answer proves the bank has it.
        moved = bank_file_move(bank_file=bank_file, event=BankFileEvent.TRANSMIT, transmitted_at=at, last_error="")
        bank_file = moved or bank_file
    if bank_file.status == BankFileStatus.PENDING:
        # The bank has it, but the run that sent it stopped before recording it: the next transmit_files reads it
        # back and records it, and the next fetch applies this acknowledgement then.
        result.exception(inbound.name, f"acknowledges {bank_file.name}, not yet recorded as transmitted: kept")
        return
    if bank_file.status in ANSWERED:
        _second_answer(inbound, bank_file, ack, at, result)
        return
    sent = bank_file.origination_file
    told = (ack.sha256, ack.entries, ack.debit_total, ack.credit_total)
    ours = (sent.sha256, sent.entry_count, sent.debit_total, sent.credit_total)
    if any(theirs is not None and theirs != mine for theirs, mine in zip(told, ours, strict=True)):
        result.exception(
            inbound.name,
            f"the bank's figures for {bank_file.name} differ from the file we sent (SHA-256, entries or totals)",
        )
    event = BankFileEvent.ACKNOWLEDGE if ack.accepted else BankFileEvent.REJECT
    with transaction.atomic():
        moved = bank_file_move(
            bank_file=bank_file, event=event, answered_at=at, rejected_reason="" if ack.accepted else ack.reason[:500]
        )
        _finish(inbound, InboundFile.State.APPLIED, at, summary={"file": bank_file.name, "accepted": ack.accepted})
    if moved is not None:
        if ack.accepted:
            result.acknowledged += 1
        else:
            result.rejected += 1
            result.rejected_files.append(bank_file.name)


def _said(accepted: bool, reason: str) -> str:
    return "accepted" if accepted else f"rejected ({reason[:150]})"


def _second_answer(inbound: InboundFile, bank_file: BankFile, ack: Acknowledgement, at: datetime, result) -> None:
    """Another answer to a file the bank answered already: the same answer changes nothing; one that says otherwise
    makes the file an exception (CONTRACT 16): its entries that have not settled wait for an operator, who asks the
    bank which answer holds and says so in the admin."""
    summary = {"file": bank_file.name, "accepted": ack.accepted, "secondAnswer": True}
    first_accepted = bank_file.status == BankFileStatus.ACKNOWLEDGED
    if bank_file.status != BankFileStatus.EXCEPTION and first_accepted == ack.accepted:
        _finish(inbound, InboundFile.State.APPLIED, at, summary=summary)
        return
    if bank_file.status == BankFileStatus.EXCEPTION:
        text = f"another answer to {bank_file.name}, already an exception: {_said(ack.accepted, ack.reason)}"
    else:
        text = (
            f"the bank's answers to {bank_file.name} contradict each other: first "
            f"{_said(first_accepted, bank_file.rejected_reason)}, then {_said(ack.accepted, ack.reason)} in "
            f"{inbound.name}"
        )
    with transaction.atomic():
        if bank_file.status != BankFileStatus.EXCEPTION:
            bank_file_move(bank_file=bank_file, event=BankFileEvent.CONTRADICT, exception=text[:ERROR_WIDTH])
        _finish(inbound, InboundFile.State.APPLIED, at, summary=summary)
    settled = Transaction.objects.filter(
        batch__origination_file_id=bank_file.origination_file_id, settlement__isnull=False
    ).count()
    then = f"; {settled} of its entries settled before this answer" if settled else ""
    if bank_file.name not in result.contradicted:  # a third answer in the same run names the file once
        result.contradicted.append(bank_file.name)
    result.exception(
        inbound.name,
        f"{text}{then}: ask the bank which holds, then say so in the admin (Bank files); the file's other entries wait",
    )
    logger.error("%s", text)


def _returns_apply(inbound: InboundFile, local: Path, at: datetime, result: FetchResult) -> None:
    try:
        with local.open("rb") as handle:
            summary = returns_import(
                source=ReturnFileSource(handle), filename=inbound.name, at=at, actor=FETCH_BANK_FILES
            )
    except ReturnFileError as exc:
        _finish(inbound, InboundFile.State.REFUSED, at, error=str(exc))
        result.refused += 1
        result.exception(inbound.name, f"refused whole, nothing applied: {exc}{MAY_BE_INCOMPLETE}")
        return
    _finish(inbound, InboundFile.State.APPLIED, at, summary=summary)
    if summary.get("alreadyImported"):
        result.exception(inbound.name, "imported before (import_returns): nothing applied again")
        return
    result.returns += summary["returns"]
    result.notices += summary["notices"]
    for item in summary.get("exceptions", []):
        result.exceptions.append({"file": inbound.name, **item})
    for trace in summary.get("unmatched", []):
        earlier = _applied_before(trace)
        reason = f"already applied: {earlier}" if earlier else "no entry of ours matches it"
        result.exception(inbound.name, reason, trace=trace)


def _applied_before(trace: str) -> str | None:
    """For an item a return file names that applied nothing: the earlier file whose return or notice of change of
    that entry was applied (a bank that regenerated a file, its items the same)."""
    answers = (
        ("returned by", TransactionReturn.objects.filter(transaction__trace_number=trace)),
        ("its notice of change applied from", ChangeNotice.objects.filter(transaction__trace_number=trace)),
    )
    for what, found in answers:
        earlier = found.filter(ingestion_file__isnull=False).order_by("-pk").values_list("ingestion_file__filename")
        if row := earlier.first():
            return f"{what} {row[0]}"
    return None


def _statement_apply(inbound: InboundFile, data: bytes, at: datetime, result: FetchResult) -> None:
    """A statement of our settlement account is kept (once) for `reconcile`; one of another account, or one that
    does not read, is set aside (refused) and said so."""
    try:
        read = statement_import(name=inbound.name, data=data, at=at)
    except StatementRefused as exc:
        _finish(inbound, InboundFile.State.REFUSED, at, error=str(exc))
        result.refused += 1
        result.exception(inbound.name, f"statement set aside: {exc}")
        return
    _finish(inbound, InboundFile.State.APPLIED, at, summary=read.as_json())


def _kind(head: bytes) -> str:
    if looks_like_acknowledgement(head):
        return InboundFile.Kind.ACKNOWLEDGEMENT
    if statement_format(head) is not None:
        return InboundFile.Kind.STATEMENT
    return InboundFile.Kind.RETURNS


def _one_file(sftp: paramiko.SFTPClient, config: BankSettings, entry, at: datetime, result: FetchResult) -> None:
    """One file of the bank's outbox (`entry`, as listed): taken once whole; a file refused before is read again
    on every run, and applied once what the bank's server holds under its name reads (CONTRACT 16)."""
    name = entry.filename
    known = InboundFile.objects.filter(name=name).first()
    if known is not None and known.state not in (InboundFile.State.APPLYING, InboundFile.State.REFUSED):
        return
    if not SAFE_NAME.match(name):
        result.exception(name[:80], "a name this service does not take (letters, digits, '.', '_', '-'): left there")
        return
    remote = f"{config.inbound_dir}/{name}"
    local, digest, size = _download(sftp, remote, name)
    if _growing(sftp, remote, entry, size):
        result.exception(name, "still being written on the bank's server (it changed while it was read): next run")
        return
    if known is not None and known.state == InboundFile.State.REFUSED:
        if known.sha256 == digest:
            result.refused += 1
            result.exception(name, f"unchanged since it was refused: {known.error}")
            return
        result.exception(name, "changed on the bank's server since it was refused: read again")
    elif known is not None and known.sha256 != digest:
        result.exception(name, "its content changed on the bank's server after it was first fetched: left there")
        return
    with local.open("rb") as handle:
        head = handle.read(512)
    kind = _kind(head)
    if known is None or known.state == InboundFile.State.REFUSED:
        inbound = _recorded(name, digest, size, kind, at, refused=known)
    else:
        inbound = known
    result.files.append(name)
    if inbound.state == InboundFile.State.DUPLICATE:
        result.exception(name, f"the same content as {inbound.duplicate_of.name}, which was applied: not again")
    elif inbound.kind == InboundFile.Kind.ACKNOWLEDGEMENT:
        _acknowledgement_apply(inbound, local.read_bytes(), at, result)
    elif inbound.kind == InboundFile.Kind.STATEMENT:
        _statement_apply(inbound, local.read_bytes(), at, result)
    else:
        _returns_apply(inbound, local, at, result)


def _growing(sftp: paramiko.SFTPClient, remote: str, entry, size: int) -> bool:
    """Whether the bank's server is still writing the file: what was read, or what it shows now, differs from the
    listing (a server that writes in place, with no temporary name)."""
    now = sftp.stat(remote)
    return size != entry.st_size or (now.st_size, now.st_mtime) != (entry.st_size, entry.st_mtime)


def _overdue_mark(at: datetime, result: FetchResult) -> None:
    """Every transmitted file the bank has not answered within BANK_ACK_TIMEOUT_MINUTES."""
    minutes = settings.BANK_ACK_TIMEOUT_MINUTES
    overdue = BankFile.objects.filter(
        status=BankFileStatus.TRANSMITTED, transmitted_at__lte=at - timedelta(minutes=minutes)
    )
    for bank_file in overdue.order_by("pk"):
        if bank_file_move(bank_file=bank_file, event=BankFileEvent.TIME_OUT) is not None:
            result.unacknowledged.append(bank_file.name)
            result.exception(bank_file.name, f"unacknowledged: no answer from the bank within {minutes} minutes")
            logger.error("%s unacknowledged after %s minutes", bank_file.name, minutes)


def bank_files_fetch(*, at: datetime) -> FetchResult:
    """Raises BankNotConfigured (before anything is touched) when the connection's settings are missing."""
    config = bank_settings()
    result = FetchResult()
    with serialized(FETCH_LOCK_KEY):
        try:
            with sftp_session(config) as sftp:
                listing = sftp.listdir_attr(config.inbound_dir)
                entries = sorted(
                    (entry for entry in listing if stat.S_ISREG(entry.st_mode or 0)), key=lambda entry: entry.filename
                )
                for entry in entries:
                    name = entry.filename
                    if name.startswith(".") or name.endswith(".part"):
                        continue
                    try:
                        _one_file(sftp, config, entry, at, result)
                    except (OSError, ValueError) as exc:
                        result.refused += 1
                        result.exception(name, f"not fetched: {describe(exc)}")
        except BankConnectionError as exc:
            result.connection_error = str(exc)
        _overdue_mark(at, result)
    return result


def fetch_problems(result: FetchResult) -> list[str]:
    """What the operator must hear of a run, one clause each (the command exits 1 with them, one line)."""
    problems = [result.connection_error] if result.connection_error else []
    for names, what in (
        (result.unacknowledged, "now unacknowledged by the bank"),
        (result.rejected_files, "rejected by the bank (their entries do not settle; docs/operations.md section 9)"),
        (result.contradicted, "answered twice by the bank, the answers contradicting each other: an exception"),
    ):
        if names:
            problems.append(f"{len(names)} file(s) {what}: {', '.join(names)}")
    if result.refused:
        problems.append(f"{result.refused} file(s) from the bank were not applied; see exceptions")
    return problems
