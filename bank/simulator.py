"""A test bank (CONTRACT 16): an SFTP server (asyncssh) that behaves as an ODFI. It takes our NACHA files in
`to-bank/`, reads each with an independent reader (achkit, which shares no code with the nacha package), and
writes into `from-bank/` at once an acknowledgement of it (docs/bank-files.md; a rejection when achkit finds it
malformed) and a return / NOC file for the entries whose account numbers are the sandbox's magic `000555NN` /
`000666NN` (CONTRACT 13; any company: it is a test bank). A fault, armed for the next upload only, makes it fail as
real servers do: drop the connection mid-upload, accept a write and store nothing, or answer slowly.

Every file it accepted is also a line of `journal.jsonl` in its root (and `Bank.received`): what the tests and
the bank week count to prove a file reached the bank exactly once."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import json
import os
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

import achkit
import asyncssh

import nacha
from bank import statements
from nacha import acknowledgements
from transactions import calendar
from transactions.sandbox import magic

TO_BANK, FROM_BANK = "to-bank", "from-bank"
JOURNAL = "journal.jsonl"
FAULTS = ("drop-upload", "lose-write", "slow", "reject", "drop-after-rename")
TAKEN = "taken"  # where a bank that takes its files away puts them
PART = b".part"
ACK_SUFFIX, RETURNS_SUFFIX = ".ack", ".returns"
DEBIT_CODES = {"27", "28", "37", "38"}
PRENOTE_CODES = {"23", "28", "33", "38"}


@dataclass
class Bank:
    """The ODFI's side: its folders, what it received, and the fault armed for the next upload."""

    root: Path
    password: str
    slow_seconds: float = 1.0
    fault: str | None = None
    # The public keys (OpenSSH lines) any user name may also log in with, as a real bank lists its clients' keys.
    client_keys: list[str] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # A bank whose processor moves each file out of to-bank/ (into taken/) once it took it.
    takes_files_away: bool = False
    # A connection that drops while the client logs in (a network cut, a server restarting): never a refusal.
    drops_logins: bool = False
    # The statement of our settlement account it writes for each file it takes (bank/statements.py): its format
    # (`none`: no statement), a line per file or per batch, and with noise the other lines a real account shows.
    statement: str = "none"
    posting: str = "file"
    statement_noise: bool = False
    settlement_account: str = "9876543210"
    balance: int = 100_000_000
    seed: int = 0
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        self.rng.seed(self.seed)
        for folder in (TO_BANK, FROM_BANK):
            (self.root / folder).mkdir(parents=True, exist_ok=True)

    def arm(self, fault: str | None) -> None:
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; one of {', '.join(FAULTS)}")
        self.fault = fault

    def take_fault(self) -> str | None:
        with self.lock:
            fault, self.fault = self.fault, None
            return fault

    def examine(self, name: str, data: bytes, *, reject: bool = False) -> tuple[dict, list[tuple[Path, str]]] | None:
        """What the bank makes of a file (its journal line, the answers it writes), read before the file is renamed
        into place, so that a simulator killed right after the rename has journaled and answered it. An empty file
        is nothing the bank received (a write the server lost): not answered. `reject`: its own checks refuse it."""
        if not data:
            return None
        text = data.decode("ascii", errors="replace")
        errors = achkit.validate(text)["errors"]
        if reject:
            errors = [{"code": "REJECTED", "message": "refused by the bank's own checks (simulator --fault reject)"}]
        record: dict[str, Any] = {"name": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
        writes: list[tuple[Path, str]] = []
        if errors:
            reason = "; ".join(f"{error['code']}: {error['message']}" for error in errors[:3])
            record.update(accepted=False, reason=reason, returns=0, notices=0, **_counts(None))
        else:
            parsed = achkit.parse(text)
            answers, settles = _magic_answers(parsed)
            record.update(accepted=True, reason=None, **_counts(parsed))
            record["returns"] = sum(1 for spec in answers if spec.kind == "return")
            record["notices"] = sum(1 for spec in answers if spec.kind == "noc")
            if answers:
                writes.append(
                    (self.root / FROM_BANK / f"{name}{RETURNS_SUFFIX}", _return_file(parsed, answers, settles))
                )
            writes += self.statement_answer(name, parsed, answers, settles)
        writes.append((self.root / FROM_BANK / f"{name}{ACK_SUFFIX}", _acknowledgement(record, text)))
        return record, writes

    def answer(self, examined: tuple[dict, list[tuple[Path, str]]] | None) -> None:
        if examined is None:
            return
        record, writes = examined
        for path, text in writes:
            _write(path, text)
        with self.lock:
            self.received.append(record)
            with (self.root / JOURNAL).open("a", encoding="utf-8") as journal:
                journal.write(json.dumps(record) + "\n")

    def statement_answer(
        self, name: str, parsed: dict, answers: list[nacha.ReturnSpec], settles: list[date]
    ) -> list[tuple[Path, str]]:
        """The statement of the file's settlement day, to write with the file's other answers: its settlement lines
        and its returns' (CONTRACT 19; a real bank sends one a day, one a file needs no clock in tests)."""
        if self.statement == "none":
            return []
        returned = [
            (spec.original_trace, spec.amount, spec.original_transaction_code in DEBIT_CODES, settlement(day))
            for spec, day in zip(answers, settles, strict=True)
            if spec.kind == "return"
        ]
        postings = statements.file_postings(name, parsed, posting=self.posting)
        postings += statements.return_postings(returned)
        if not postings:
            return []
        day = max(posting.value_date for posting in postings)
        with self.lock:
            if self.statement_noise:
                postings = statements.noise_add(postings, self.rng, day=day)
            writer, suffix = statements.WRITERS[self.statement]
            opening = self.balance
            self.balance += sum(p.amount if p.direction == "credit" else -p.amount for p in postings)
            text = writer(
                account=self.settlement_account, day=day, opening=opening, postings=postings, file_id=name[-12:-4]
            )
        return [(self.root / FROM_BANK / f"{name}{suffix}", text)]


def settlement(effective_date: date) -> date:
    return calendar.next_business_day(effective_date)


def _counts(parsed: dict | None) -> dict[str, int]:
    counts = dict.fromkeys(("entries", "debitCount", "creditCount", "prenoteCount", "debitTotal", "creditTotal"), 0)
    for batch in (parsed or {}).get("batches", []):
        for entry in batch["entries"]:
            code = f"{entry['txn_code']:02d}"
            counts["entries"] += 1
            if code in PRENOTE_CODES:
                counts["prenoteCount"] += 1
            elif code in DEBIT_CODES:
                counts["debitCount"] += 1
                counts["debitTotal"] += entry["amount_cents"]
            else:
                counts["creditCount"] += 1
                counts["creditTotal"] += entry["amount_cents"]
    return counts


def _acknowledgement(record: dict[str, Any], text: str) -> str:
    """The acknowledgement format of docs/bank-files.md (version 1), of the file as the bank read it."""
    header = nacha.parse(nacha.FILE_HEADER, text[: nacha.RECORD_LENGTH])
    control = next((line for line in text.splitlines() if line.startswith("9") and line.strip("9")), "")
    ack = acknowledgements.Acknowledgement(
        file=record["name"],
        accepted=record["accepted"],
        reason=record["reason"] or "",
        sha256=record["sha256"],
        entries=record["entries"],
        debit_total=record["debitTotal"],
        credit_total=record["creditTotal"],
    )
    entry_hash = nacha.parse(nacha.FILE_CONTROL, control)["entry_hash"] or None if control else None
    return acknowledgements.acknowledgement_text(
        ack, file_id_modifier=header["file_id_modifier"], entry_hash=entry_hash, received_at=datetime.now(tz=UTC)
    )


def _magic_answers(parsed: dict) -> tuple[list[nacha.ReturnSpec], list[date]]:
    """The return / NOC of each magic entry, and the day each entry settles."""
    answers, settles = [], []
    for batch in parsed["batches"]:
        for entry in batch["entries"]:
            outcome = magic.outcome_for(entry["account"])
            if outcome is None or outcome[0] not in (magic.Outcome.RETURN, magic.Outcome.NOTICE):
                continue
            kind, code = ("return" if outcome[0] == magic.Outcome.RETURN else "noc"), outcome[1]
            code_sent = f"{entry['txn_code']:02d}"
            account_type = nacha.account_type_for_code(code_sent) or "Checking"
            direction = "Debit" if code_sent in DEBIT_CODES else "Credit"
            corrected = magic.corrected_values(code, account_type=account_type) if kind == "noc" else {}
            if "accountType" in corrected:  # the file carries the corrected transaction code
                corrected["transactionCode"] = nacha.TRANSACTION_CODES[(direction, corrected.pop("accountType"))]
            answers.append(
                nacha.ReturnSpec(
                    kind=kind,
                    code=code,
                    original_trace=entry["trace_number"],
                    original_transaction_code=nacha.TRANSACTION_CODES[(direction, account_type)],
                    routing_number=entry["routing"],
                    account_number=entry["account"],
                    amount=entry["amount_cents"],
                    individual_name=entry["name"],
                    company_name=batch["company_name"],
                    company_identification=batch["company_id"],
                    sec_code=batch["sec"],
                    corrected=corrected,
                ),
            )
            settles.append(datetime.strptime(batch["effective_date"], "%y%m%d").date())  # noqa: DTZ007
    return answers, settles


def _return_file(parsed: dict, answers: list[nacha.ReturnSpec], settles: list[date]) -> str:
    """From the bank the file went to, back to its origin, dated the latest settlement day it answers (a return
    is never dated before the entry it returns)."""
    return nacha.return_file_text(
        items=answers,
        rdfi_routing=parsed["destination_routing"],
        odfi_routing=parsed["origin_routing"],
        created_at=datetime.combine(max(settles), time(6, 0), tzinfo=calendar.EASTERN),
    )


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a client listing the folder never sees half a file (names starting with a dot are
    not the bank's files)."""
    partial = path.with_name(f".{path.name}.tmp")
    partial.write_text(text, encoding="ascii")
    os.replace(partial, path)


class _Session(asyncssh.SFTPServer):
    """One client's SFTP session, rooted at the bank's folder."""

    def __init__(self, chan: asyncssh.SSHServerChannel, bank: Bank) -> None:
        super().__init__(chan, chroot=str(bank.root).encode())
        self.bank = bank
        self.slow = False
        self.losing: set[int] = set()
        self.dropping = False
        self.rejecting = False
        self.dropping_after_rename = False

    async def _pause(self) -> None:
        if self.slow:
            await asyncio.sleep(self.bank.slow_seconds)

    async def open(self, path: bytes, pflags: int, attrs: asyncssh.SFTPAttrs):
        if pflags & asyncssh.FXF_WRITE and path.endswith(PART):
            fault = self.bank.take_fault()
            self.slow = self.slow or fault == "slow"
            self.dropping = fault == "drop-upload"
            self.rejecting = self.rejecting or fault == "reject"
            self.dropping_after_rename = self.dropping_after_rename or fault == "drop-after-rename"
            lose = fault == "lose-write"
        else:
            lose = False
        await self._pause()
        handle = super().open(path, pflags, attrs)
        if lose:
            self.losing.add(id(handle))
        return handle

    async def write(self, file_obj: Any, offset: int, data: bytes):
        await self._pause()
        if id(file_obj) in self.losing:
            return None  # accepted, never stored (moov-io/achgateway#150)
        if self.dropping:
            super().write(file_obj, offset, data[: len(data) // 2])
            self.connection.abort()  # the connection drops mid-upload
            return None
        return super().write(file_obj, offset, data)

    async def close(self, file_obj: Any):
        await self._pause()
        self.losing.discard(id(file_obj))
        return super().close(file_obj)

    async def rename(self, oldpath: bytes, newpath: bytes):
        await self._pause()
        target = Path(self.map_path(newpath).decode())
        if target.exists():
            raise asyncssh.SFTPFailure(f"{target.name} already exists")
        taking = target.parent.name == TO_BANK and target.parent.parent == self.bank.root and target.suffix != ".part"
        if taking:
            rejecting, self.rejecting = self.rejecting, False
            source = Path(self.map_path(oldpath).decode())
            # Journaled and answered, then renamed: a simulator killed once the name shows has answered it.
            self.bank.answer(self.bank.examine(target.name, source.read_bytes(), reject=rejecting))
        super().rename(oldpath, newpath)
        if taking:
            if self.bank.takes_files_away:
                (self.bank.root / TAKEN).mkdir(exist_ok=True)
                os.replace(target, self.bank.root / TAKEN / target.name)
            if self.dropping_after_rename:
                self.dropping_after_rename = False
                self.connection.abort()  # renamed, and the answer never comes

    async def posix_rename(self, oldpath: bytes, newpath: bytes):
        return await self.rename(oldpath, newpath)

    async def stat(self, path: bytes):
        await self._pause()
        return super().stat(path)

    async def lstat(self, path: bytes):
        await self._pause()
        return super().lstat(path)

    async def read(self, file_obj: Any, offset: int, size: int):
        await self._pause()
        return super().read(file_obj, offset, size)

    async def remove(self, path: bytes):
        await self._pause()
        return super().remove(path)


class _Server(asyncssh.SSHServer):
    """Any user name, with the bank's password or one of its client keys."""

    def __init__(self, bank: Bank) -> None:
        self.bank = bank
        self.conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        if self.bank.drops_logins and self.conn is not None:
            self.conn.abort()
            return False
        return hmac.compare_digest(password.encode(), self.bank.password.encode())

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        offered = key.public_data
        return any(asyncssh.import_public_key(line).public_data == offered for line in self.bank.client_keys)


def client_keys_read(path: Path) -> list[str]:
    """The public keys of an authorized_keys-style file (one OpenSSH line each; blank and # lines skipped), each
    checked, so that a bad line is refused when the simulator starts, not at a login."""
    lines = [line.strip() for line in path.read_text().splitlines()]
    keys = [line for line in lines if line and not line.startswith("#")]
    for number, line in enumerate(keys, 1):
        try:
            asyncssh.import_public_key(line)
        except (asyncssh.KeyImportError, ValueError) as exc:
            raise ValueError(f"{path}: key {number} is not an OpenSSH public key ({exc})") from None
    return keys


def host_key_load(path: Path | None) -> asyncssh.SSHKey:
    """The server's key: kept in `path` (0600) when given, so a demo's pinned key survives a restart; else new."""
    if path is not None and path.exists():
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519")
    if path is not None:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(key.export_private_key())
    return key


async def serve(bank: Bank, *, host: str, port: int, key: asyncssh.SSHKey) -> asyncssh.SSHAcceptor:
    return await asyncssh.listen(
        host,
        port,
        server_host_keys=[key],
        server_factory=functools.partial(_Server, bank),
        sftp_factory=functools.partial(_Session, bank=bank),
        allow_scp=False,
        reuse_address=True,
    )


def ready_line(acceptor: asyncssh.SSHAcceptor, key: asyncssh.SSHKey) -> dict[str, Any]:
    return {"port": acceptor.get_port(), "hostKey": key.export_public_key("openssh").decode().strip()}


@dataclass
class RunningBank:
    bank: Bank
    port: int
    host_key: str

    def url(self, user: str = "vault") -> str:
        return f"sftp://{user}@127.0.0.1:{self.port}"


@contextmanager
def bank_in_thread(
    root: Path,
    *,
    password: str,
    slow_seconds: float = 1.0,
    key: asyncssh.SSHKey | None = None,
    **options: Any,
) -> Iterator[RunningBank]:
    """The simulator on a loopback port of its own, its event loop in a thread of this process (tests, the bank
    week): arm a fault with `running.bank.arm(...)`; `options` are the Bank's (its statements)."""
    bank = Bank(root=root, password=password, slow_seconds=slow_seconds, **options)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="bank-simulator", daemon=True)
    thread.start()
    key = key or host_key_load(None)
    acceptor = asyncio.run_coroutine_threadsafe(serve(bank, host="127.0.0.1", port=0, key=key), loop).result(30)
    line = ready_line(acceptor, key)
    try:
        yield RunningBank(bank=bank, port=line["port"], host_key=line["hostKey"])
    finally:

        async def _stop() -> None:
            acceptor.close()
            await acceptor.wait_closed()
            others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(_stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()
