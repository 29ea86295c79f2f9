"""What `settle` makes of the bank's answer (CONTRACT 16), over real SFTP on loopback against the simulator: an entry
settles once its file is on the bank's server; a rejected file's entries wait until the file sent again from the
admin is acknowledged. Without a bank connection files are carried by hand and settle as before (tests/transactions)."""

from __future__ import annotations

import pytest

from bank.models import BankFile
from tests import factories
from tests.bank.conftest import command
from tests.bank.test_fetch import FETCH_AT, day_originated, file_damaged
from tests.bank.test_transmit import TRANSMIT_AT
from tests.transactions.ach.conftest import MONDAY_SETTLED, run
from transactions.models import OriginationFile, Status, Transaction

pytestmark = pytest.mark.django_db


def _settled(entries: dict[str, Transaction]) -> dict[str, bool]:
    return {name: Transaction.objects.get(pk=txn.pk).status == Status.SETTLED for name, txn in entries.items()}


def test_entries_of_a_file_not_yet_transmitted_do_not_settle(bank, company):
    entries = day_originated(company)
    file = OriginationFile.objects.get()

    held = run("settle", "--at", MONDAY_SETTLED)

    assert held["transactions"] == 0 and not any(_settled(entries).values())
    assert held["filesAwaitingBank"] == [
        {"originationFileUuid": str(file.uuid), "path": file.path, "transactions": len(entries)}
    ]
    assert command("transmit_files", "--at", TRANSMIT_AT)[1] is None
    settled = run("settle", "--at", MONDAY_SETTLED)
    assert (settled["transactions"], settled["filesAwaitingBank"]) == (len(entries), [])
    assert all(_settled(entries).values())


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
    after_resend = run("settle", "--at", MONDAY_SETTLED)
    assert command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"] == [resent.name]
    after_transmission = run("settle", "--at", MONDAY_SETTLED)
    assert command("fetch_bank_files", "--at", FETCH_AT)[0]["acknowledged"] == 1
    after_acknowledgement = run("settle", "--at", MONDAY_SETTLED)

    for held in (after_rejection, after_resend, after_transmission):
        assert (held["transactions"], len(held["filesAwaitingBank"])) == (0, 1)
    assert after_acknowledgement["transactions"] == 3  # the bank returned the 000555 entry with its acknowledgement
    assert after_acknowledgement["filesAwaitingBank"] == []
    assert _settled(entries) == {"settles": True, "returned": False, "noticed": True, "credit": True}
