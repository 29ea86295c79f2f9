"""fetch_bank_files over real SFTP on loopback against the simulator (CONTRACT 16): a full day end to end
(originate, transmit_files, the bank's acknowledgement and returns, fetch_bank_files, settle); acknowledgements and
rejections; an unanswered file becomes unacknowledged (the admin, /health); a duplicate inbound file is applied once;
a rejected file is sent again from the admin with a new file id modifier."""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bank.models import BankFile, BankFileStatus, InboundFile
from bank.services import bank_file_resend
from events.models import Event
from tests import factories
from tests.bank.conftest import command, received_names, remote
from tests.bank.test_transmit import TRANSMIT_AT
from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run
from transactions import calendar
from transactions.models import OriginationFile, Status, Transaction

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("monday_early")]

FETCH_AT = "2026-12-07T15:45:00Z"
LATE = "2026-12-07T16:31:00Z"  # 61 minutes after TRANSMIT_AT


def day_originated(company) -> dict[str, Transaction]:
    entries = {
        "settles": bank_txn(company, amount=1500),
        "returned": bank_txn(company, amount=2500, account_number="00055501"),
        "noticed": bank_txn(company, amount=3000, account_number="00066601"),
        "credit": bank_txn(company, type="Credit", amount=700, standard_entry_class_code="PPD"),
    }
    run("originate", "--at", MONDAY_MORNING)
    return entries


def test_a_full_day_goes_to_the_bank_and_back(bank, company):
    entries = day_originated(company)
    sent, error = command("transmit_files", "--at", TRANSMIT_AT)
    (name,) = sent["transmitted"]
    assert error is None and received_names(bank) == [name]
    fetched, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert error is None
    assert fetched == {
        "files": [f"{name}.ack", f"{name}.returns"],
        "acknowledged": 1,
        "rejected": 0,
        "returns": 1,
        "notices": 1,
        "exceptions": [],
    }
    bank_file = BankFile.objects.get()
    assert bank_file.status == BankFileStatus.ACKNOWLEDGED
    (event,) = Event.objects.filter(type="ach_file.acknowledged", company=company)
    assert event.data["entries"]["debitTotal"] == 7000 and event.data["entries"]["creditTotal"] == 700
    settled = run("settle", "--at", MONDAY_SETTLED)
    assert settled["transactions"] == 3
    statuses = {key: Transaction.objects.get(pk=txn.pk).status for key, txn in entries.items()}
    assert statuses == {
        "settles": Status.SETTLED,
        "returned": Status.RETURNED,
        "noticed": Status.SETTLED,
        "credit": Status.SETTLED,
    }
    assert Transaction.objects.get(pk=entries["returned"].pk).return_code == "R01"
    # The bank's totals match ours to the cent, and nothing came twice.
    (received,) = bank.received
    file = OriginationFile.objects.get()
    assert (received["debitTotal"], received["creditTotal"]) == (file.debit_total, file.credit_total)
    again, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert (again["files"], again["returns"], error) == ([], 0, None)


def test_the_same_return_file_under_another_name_is_applied_once(bank, company):
    day_originated(company)
    (name,) = command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"]
    returns = Path(bank.root, "from-bank", f"{name}.returns")
    shutil.copy(returns, returns.with_name("COPY_OF_RETURNS.ach"))
    fetched, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert error is None
    assert (fetched["returns"], fetched["notices"]) == (1, 1)
    assert fetched["exceptions"] == [
        {
            "file": "COPY_OF_RETURNS.ach",
            "reason": f"the same content as {name}.returns, which was applied: not again",
        }
    ]
    copy = InboundFile.objects.get(name="COPY_OF_RETURNS.ach")
    assert copy.state == InboundFile.State.DUPLICATE and copy.duplicate_of.name == f"{name}.returns"
    assert Transaction.objects.filter(status=Status.RETURNED).count() == 1


def test_a_file_the_bank_does_not_answer_in_time_is_unacknowledged(bank, company, client):
    day_originated(company)
    (name,) = command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"]
    ack = Path(bank.root, "from-bank", f"{name}.ack")
    held_back = ack.read_bytes()
    ack.unlink()
    early, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert error is None and BankFile.objects.get().status == BankFileStatus.TRANSMITTED
    late, error = command("fetch_bank_files", "--at", LATE)
    assert late["exceptions"] == [{"file": name, "reason": "unacknowledged: no answer from the bank within 60 minutes"}]
    assert error == f"1 file(s) now unacknowledged by the bank: {name}"
    assert BankFile.objects.get().status == BankFileStatus.UNACKNOWLEDGED
    assert Event.objects.filter(type="ach_file.unacknowledged", company=company).count() == 1
    health = client.get("/health").json()["checks"]["bankFiles"]
    assert health["unacknowledged"] == 1 and health["unacknowledgedFiles"] == [name]
    ack.write_bytes(held_back)  # the answer comes after all
    answered, error = command("fetch_bank_files", "--at", LATE)
    assert (answered["acknowledged"], error) == (1, None)
    assert BankFile.objects.get().status == BankFileStatus.ACKNOWLEDGED
    assert client.get("/health").json()["checks"]["bankFiles"]["unacknowledged"] == 0


def file_damaged(tmp_path: Path) -> None:
    """The one NACHA file on disk damaged after it was written (a cent more on an entry): the bank's reader rejects
    it."""
    file = OriginationFile.objects.get()
    damaged = tmp_path / "damaged" / Path(file.path).name
    damaged.parent.mkdir()
    lines = Path(file.path).read_text().split("\n")
    entry = next(number for number, line in enumerate(lines) if line.startswith("6"))
    lines[entry] = lines[entry][:38] + str((int(lines[entry][38]) + 1) % 10) + lines[entry][39:]
    damaged.write_text("\n".join(lines))
    OriginationFile.objects.filter(pk=file.pk).update(path=str(damaged), sha256=_sha256(damaged))


def test_a_rejected_file_is_sent_again_from_the_admin_with_a_new_file_id_modifier(bank, company, client, tmp_path):
    day_originated(company)
    file_damaged(tmp_path)
    (name,) = command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"]
    fetched, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert (fetched["acknowledged"], fetched["rejected"], fetched["returns"]) == (0, 1, 0)
    assert error.startswith("1 file(s) rejected by the bank") and error.endswith(name)
    rejected = BankFile.objects.get()
    assert rejected.status == BankFileStatus.REJECTED and "BAD_BATCH" in rejected.rejected_reason
    assert Event.objects.get(type="ach_file.rejected", company=company).data["rejectedReason"]
    assert client.get("/health").json()["checks"]["bankFiles"]["rejectedFiles"] == [name]
    # Never again by itself: the next runs send nothing.
    assert command("transmit_files", "--at", TRANSMIT_AT)[0] == {"transmitted": [], "failed": []}
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    response = client.post(
        "/admin/bank/bankfile/", {"action": "send_again", "_selected_action": [rejected.pk]}, follow=True
    )
    assert response.status_code == 200
    rejected.refresh_from_db()
    resent = rejected.resent_as
    assert resent.status == BankFileStatus.PENDING
    assert resent.origination_file.file_id_modifier == "B" and resent.name != name
    (again,) = command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"]
    assert again == resent.name
    fetched, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert (fetched["acknowledged"], fetched["returns"], fetched["notices"], error) == (1, 1, 1, None)
    assert received_names(bank) == [name, resent.name]
    assert [record["accepted"] for record in bank.received] == [False, True]
    assert remote(bank, "to-bank") == sorted([name, resent.name])
    # A second click sends nothing more.
    client.post("/admin/bank/bankfile/", {"action": "send_again", "_selected_action": [rejected.pk]})
    assert BankFile.objects.count() == 2


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_second_answer_that_contradicts_the_first_is_an_exception_the_operator_decides(bank, company, client):
    """Reliability review 2026-12-07 B2: after `accepted`, a second acknowledgement saying `rejected` is no longer
    dropped silently: exit 1, an exception quoting both, an `ach_file.exception` event, /health, and entries that
    wait until an operator, having asked the bank, says which answer holds."""
    entries = day_originated(company)
    (name,) = command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"]
    ack = Path(bank.root, "from-bank", f"{name}.ack")
    first, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert (first["acknowledged"], error) == (1, None)
    document = json.loads(ack.read_text())
    second = ack.with_name(f"{name}.ack.second")
    second.write_text(json.dumps({**document, "status": "rejected", "reason": "R: rejected after review"}))

    fetched, error = command("fetch_bank_files", "--at", FETCH_AT)

    assert (fetched["files"], fetched["acknowledged"], fetched["rejected"]) == ([second.name], 0, 0)
    (exception,) = fetched["exceptions"]
    assert exception["file"] == second.name
    assert exception["reason"].startswith(
        f"the bank's answers to {name} contradict each other: first accepted, then rejected (R: rejected after "
        f"review) in {second.name}"
    )
    assert error == (
        f"1 file(s) answered twice by the bank, the answers contradicting each other: an exception: {name}"
    )
    bank_file = BankFile.objects.get()
    assert bank_file.status == BankFileStatus.EXCEPTION and "then rejected" in bank_file.exception
    event = Event.objects.get(type="ach_file.exception", company=company)
    assert event.data["exception"] == bank_file.exception
    health = client.get("/health").json()["checks"]["bankFiles"]
    assert (health["exception"], health["exceptionFiles"]) == (1, [name])
    assert run("settle", "--at", MONDAY_SETTLED)["transactions"] == 0
    # The same answer again changes nothing more; the operator decides from the admin.
    assert command("fetch_bank_files", "--at", FETCH_AT) == ({**fetched, "files": [], "exceptions": []}, None)
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    client.post("/admin/bank/bankfile/", {"action": "bank_rejected", "_selected_action": [bank_file.pk]})
    bank_file.refresh_from_db()
    assert bank_file.status == BankFileStatus.REJECTED and "R: rejected after review" in bank_file.rejected_reason
    assert run("settle", "--at", MONDAY_SETTLED)["transactions"] == 0
    assert Transaction.objects.get(pk=entries["settles"].pk).status == Status.PROCESSING


def test_the_operator_may_say_the_bank_accepted_a_file_in_dispute(bank, company, client):
    day_originated(company)
    (name,) = command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"]
    ack = Path(bank.root, "from-bank", f"{name}.ack")
    document = json.loads(ack.read_text())
    ack.write_text(json.dumps({**document, "status": "rejected", "reason": "R: duplicate file"}))
    ack.with_name(f"{name}.ack.second").write_text(json.dumps(document))
    fetched, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert "first rejected (R: duplicate file), then accepted" in fetched["exceptions"][-1]["reason"]
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    client.post("/admin/bank/bankfile/", {"action": "bank_accepted", "_selected_action": [BankFile.objects.get().pk]})
    assert BankFile.objects.get().status == BankFileStatus.ACKNOWLEDGED
    assert run("settle", "--at", MONDAY_SETTLED)["transactions"] == 3


def test_a_half_written_answer_is_read_again_until_whole_then_applied(bank, company):
    """Reliability review 2026-12-07 B1: a bank whose server writes its files in place lets us list them half
    written. They are refused (the operator hears it may be incomplete), read again on the next run, and applied
    once whole; the file's entries settle only then, the returned one not at all."""
    entries = day_originated(company)
    (name,) = command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"]
    ack, returns = (Path(bank.root, "from-bank", f"{name}{suffix}") for suffix in (".ack", ".returns"))
    whole_ack, whole_returns = ack.read_bytes(), returns.read_bytes()
    records = whole_returns.splitlines(keepends=True)
    returns.write_bytes(b"".join(records[: len(records) // 2]))  # whole records, as a writer flushes them
    ack.write_bytes(whole_ack[: len(whole_ack) // 2])

    half, error = command("fetch_bank_files", "--at", FETCH_AT)
    settled_meanwhile = run("settle", "--at", MONDAY_SETTLED)["transactions"]
    ack.write_bytes(whole_ack)
    returns.write_bytes(whole_returns)
    whole, error_after = command("fetch_bank_files", "--at", FETCH_AT)

    assert error == "2 file(s) from the bank were not applied; see exceptions"
    assert [
        item["reason"].endswith("fetched again on every run until it reads, or set aside in the admin (Inbound files)")
        for item in half["exceptions"]
    ] == [True, True]
    assert settled_meanwhile == 0
    assert (whole["acknowledged"], whole["returns"], whole["notices"], error_after) == (1, 1, 1, None)
    assert {item["reason"] for item in whole["exceptions"]} == {
        "changed on the bank's server since it was refused: read again"
    }
    assert set(InboundFile.objects.values_list("state", flat=True)) == {InboundFile.State.APPLIED}
    assert run("settle", "--at", MONDAY_SETTLED)["transactions"] == 3
    assert Transaction.objects.get(pk=entries["returned"].pk).status == Status.RETURNED


def test_a_file_that_never_reads_is_refused_on_every_run_until_set_aside(bank, company, client):
    Path(bank.root, "from-bank", "NOT_A_FILE_OF_OURS.txt").write_text("hello\n")
    assert (
        command("fetch_bank_files", "--at", FETCH_AT)[1] == "1 file(s) from the bank were not applied; see exceptions"
    )
    again, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert error == "1 file(s) from the bank were not applied; see exceptions"
    assert again["exceptions"][0]["reason"].startswith("unchanged since it was refused: ")
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    refused = InboundFile.objects.get()
    client.post("/admin/bank/inboundfile/", {"action": "set_aside", "_selected_action": [refused.pk]})
    assert InboundFile.objects.get().state == InboundFile.State.SET_ASIDE
    assert command("fetch_bank_files", "--at", FETCH_AT) == (
        {"files": [], "acknowledged": 0, "rejected": 0, "returns": 0, "notices": 0, "exceptions": []},
        None,
    )


def test_a_regenerated_return_file_says_its_items_were_already_applied(bank, company):
    day_originated(company)
    (name,) = command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"]
    command("fetch_bank_files", "--at", FETCH_AT)
    returns = Path(bank.root, "from-bank", f"{name}.returns")
    lines = returns.read_text().split("\n")
    lines[0] = lines[0][:29] + ("0001" if lines[0][29:33] != "0001" else "0002") + lines[0][33:]  # a new time
    returns.with_name(f"{name}.returns.regenerated").write_text("\n".join(lines))

    fetched, error = command("fetch_bank_files", "--at", FETCH_AT)

    assert (fetched["returns"], fetched["notices"], error) == (0, 0, None)
    assert sorted(item["reason"] for item in fetched["exceptions"]) == [
        f"already applied: its notice of change applied from {name}.returns",
        f"already applied: returned by {name}.returns",
    ]
    assert Transaction.objects.filter(status=Status.RETURNED).count() == 1


def test_a_file_sent_again_later_is_dated_and_modified_as_no_other_file_and_takes_a_new_effective_date(
    bank, company, tmp_path
):
    """ACH review 2026-12-07 H3 and M4 (samples out_20270112_B / out_20270119_A, B and out_20270105_B): a file
    rejected on Monday 7 and sent again on Monday 14, after that day's files A and B were written, takes the 14th's
    next modifier (C), never B of the 7th dated the 14th; its batch leaves its stale effective date for the next
    valid one (Tuesday 15), and the entries' return windows count from it."""
    entries = day_originated(company)
    file_damaged(tmp_path)
    command("transmit_files", "--at", TRANSMIT_AT)
    command("fetch_bank_files", "--at", FETCH_AT)
    for minute in (0, 1):
        bank_txn(company, amount=900 + minute)
        run("originate", "--at", f"2026-12-14T15:0{minute}:00Z")

    resent = bank_file_resend(bank_file=BankFile.objects.get(), at=datetime(2026, 12, 14, 18, tzinfo=UTC))

    headers = [Path(file.path).read_text()[:94] for file in OriginationFile.objects.exclude(path="").order_by("pk")]
    pairs = [(header[23:29], header[33]) for header in headers]
    assert pairs[-1] == ("261214", "C") and len(set(pairs)) == len(pairs)
    assert resent.name.startswith("ACH_20261214_C_")
    debit = Transaction.objects.get(pk=entries["settles"].pk)
    assert debit.effective_date == date(2026, 12, 15)
    assert debit.returns_due_by == calendar.administrative_return_deadline(date(2026, 12, 15))
    batch_line = next(line for line in Path(resent.origination_file.path).read_text().split("\n") if line[:1] == "5")
    assert batch_line[69:75] == "261215"
