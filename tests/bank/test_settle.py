"""What `settle` makes of the bank's answer (CONTRACT 16), over real SFTP on loopback against the simulator: an entry
settles once the bank's acknowledgement accepted its file (not once the file is merely on the bank's server: the
bank's word is final); a rejected file's entries wait until the file sent again from the admin is acknowledged.
Without a bank connection files are carried by hand and settle as before (tests/transactions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bank.models import BankFile
from tests import factories
from tests.bank.conftest import command
from tests.bank.test_fetch import FETCH_AT, day_originated, file_damaged
from tests.bank.test_transmit import TRANSMIT_AT
from tests.transactions.ach.conftest import MONDAY_SETTLED, run
from transactions.models import OriginationFile, Status, Transaction

TUESDAY_SETTLED = "2026-12-08T22:00:01Z"
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("monday_early")]


def _settled(entries: dict[str, Transaction]) -> dict[str, bool]:
    return {name: Transaction.objects.get(pk=txn.pk).status == Status.SETTLED for name, txn in entries.items()}


def test_entries_settle_only_once_the_bank_accepted_their_file(bank, company):
    entries = day_originated(company)
    file = OriginationFile.objects.get()

    held = run("settle", "--at", MONDAY_SETTLED)

    assert held["transactions"] == 0 and not any(_settled(entries).values())
    assert held["filesAwaitingBank"] == [
        {"originationFileUuid": str(file.uuid), "path": file.path, "bankFileStatus": "pending", "transactions": 4}
    ]
    assert command("transmit_files", "--at", TRANSMIT_AT)[1] is None
    transmitted = run("settle", "--at", MONDAY_SETTLED)
    assert (transmitted["transactions"], transmitted["filesAwaitingBank"][0]["bankFileStatus"]) == (0, "transmitted")
    assert not any(_settled(entries).values())
    assert command("fetch_bank_files", "--at", FETCH_AT)[0]["acknowledged"] == 1
    settled = run("settle", "--at", MONDAY_SETTLED)
    assert (settled["transactions"], settled["filesAwaitingBank"]) == (3, [])
    assert _settled(entries) == {"settles": True, "returned": False, "noticed": True, "credit": True}


def test_a_rejection_fetched_after_settle_ran_leaves_no_entry_settled(bank, company):
    """ACH review 2026-12-07 H2 (sample out_20270105_A): settle ran between transmission and the bank's answer,
    which was a rejection; nothing settled, nothing is available, and fetch_bank_files exits 1 naming the file."""
    entries = day_originated(company)
    (name,) = command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"]
    rejection_written(bank, name)
    before_answer = run("settle", "--at", MONDAY_SETTLED)

    fetched, error = command("fetch_bank_files", "--at", FETCH_AT)
    run("mark_final", "--at", "2026-12-11T23:00:00Z")

    assert before_answer["transactions"] == 0
    assert fetched["rejected"] == 1
    assert error == (
        f"1 file(s) rejected by the bank (their entries do not settle; docs/operations.md section 9): {name}"
    )
    assert not any(_settled(entries).values())
    assert not Transaction.objects.filter(pk__in=[t.pk for t in entries.values()], finality="available")
    assert run("settle", "--at", MONDAY_SETTLED)["filesAwaitingBank"][0]["bankFileStatus"] == "rejected"


def test_a_bank_that_sends_no_acknowledgements_settles_once_the_file_is_on_its_server(bank, company, settings):
    settings.BANK_SENDS_ACKNOWLEDGEMENTS = False
    entries = day_originated(company)
    command("transmit_files", "--at", TRANSMIT_AT)

    assert run("settle", "--at", MONDAY_SETTLED)["transactions"] == 4
    assert all(_settled(entries).values())


def rejection_written(bank, name: str) -> None:
    """The bank's acknowledgement of `name` turned into a rejection (the documented format), returns withdrawn."""
    ack = Path(bank.root, "from-bank", f"{name}.ack")
    document = json.loads(ack.read_text())
    ack.write_text(json.dumps({**document, "status": "rejected", "reason": "file rejected: ODFI limit exceeded"}))
    Path(bank.root, "from-bank", f"{name}.returns").unlink(missing_ok=True)


def test_a_rejected_files_entries_settle_only_once_it_was_sent_again_and_acknowledged(bank, company, client, tmp_path):
    entries = day_originated(company)
    file_damaged(tmp_path)
    command("transmit_files", "--at", TRANSMIT_AT)
    assert command("fetch_bank_files", "--at", FETCH_AT)[0]["rejected"] == 1
    rejected = BankFile.objects.get()

    after_rejection = run("settle", "--at", MONDAY_SETTLED)
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    client.post("/admin/bank/bankfile/", {"action": "send_again", "_selected_action": [rejected.pk]})
    resent = BankFile.objects.get(resent_from=rejected)
    # Sent again on Monday after its window, the batch is dated Tuesday, the next valid day (ACH review M4).
    after_resend = run("settle", "--at", TUESDAY_SETTLED)
    assert command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"] == [resent.name]
    after_transmission = run("settle", "--at", TUESDAY_SETTLED)
    assert command("fetch_bank_files", "--at", FETCH_AT)[0]["acknowledged"] == 1
    after_acknowledgement = run("settle", "--at", TUESDAY_SETTLED)

    for held in (after_rejection, after_resend, after_transmission):
        assert (held["transactions"], len(held["filesAwaitingBank"])) == (0, 1)
    assert after_acknowledgement["transactions"] == 3  # the bank returned the 000555 entry with its acknowledgement
    assert after_acknowledgement["filesAwaitingBank"] == []
    assert _settled(entries) == {"settles": True, "returned": False, "noticed": True, "credit": True}
    assert {str(txn.effective_date) for txn in Transaction.objects.all()} == {"2026-12-08"}
    assert {str(txn.effective_date) for txn in Transaction.objects.all()} == {"2026-12-08"}
