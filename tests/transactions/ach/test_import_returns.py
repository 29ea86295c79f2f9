from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.management.base import CommandError

from tests.concurrency import at_once
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import (
    MONDAY_MORNING,
    MONDAY_SETTLED,
    NO_VALIDATIONS,
    bank_txn,
    return_csv,
    run,
    saved_method_txn,
)
from transactions.models import ChangeNotice, IngestionFile, Transaction, TransactionReturn
from transactions.return_codes import CHANGE_CODES, RETURN_CODES
from transactions.sandbox.bank_files import return_file_for
from vault import crypto

pytestmark = pytest.mark.django_db

RETURN_TIME = "2026-12-08T14:00:00Z"
# A saved-method charge still carries valid paymentDetails (SPEC 4.7 rule 2); the saved method's replace them.
PLACEHOLDER_DETAILS = {"name": "x", "accountType": "Checking", "accountNumber": "1111", "routingNumber": "021000021"}


def _return_file(tmp_path, entries, name="returns.ach"):
    path = tmp_path / name
    path.write_text(return_file_for(entries, at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    return path


def _originated(*txns):
    run("originate", "--at", MONDAY_MORNING)
    for txn in txns:
        txn.refresh_from_db()
    return txns


def test_return_file_is_itself_well_formed(company, tmp_path):
    (txn,) = _originated(bank_txn(company))
    nacha_reader.read(_return_file(tmp_path, [(txn, "R01", {})]).read_text())


def test_return_of_a_processing_transaction(company, tmp_path):
    processing, untouched = _originated(bank_txn(company), bank_txn(company))
    path = _return_file(tmp_path, [(processing, "R01", {})])

    summary = run("import_returns", str(path), "--at", RETURN_TIME)

    ingestion = IngestionFile.objects.get()
    assert summary == {
        "ingestionFileUuid": str(ingestion.uuid),
        "returns": 1,
        "notices": 0,
        "dishonoredReturns": 0,
        "contestedReturns": 0,
        "unmatched": [],
        "exceptions": [],
        "alreadyImported": False,
    }
    assert ingestion.file_format == "nacha" and ingestion.filename == "returns.ach"
    processing.refresh_from_db()
    assert processing.status == "Returned"
    assert processing.late_returned_at is None
    assert processing.ingestion_file == ingestion
    entry = processing.return_entry
    assert (entry.return_code, entry.return_reason) == ("R01", "Insufficient Funds")
    assert entry.returned_at == datetime(2026, 12, 8, 14, tzinfo=UTC)
    untouched.refresh_from_db()
    assert untouched.status == "Processing"


def test_return_of_a_settled_transaction_is_late_and_the_next_settle_gathers_it(company, tmp_path):
    (txn,) = _originated(bank_txn(company, amount=2500))
    run("settle", "--at", MONDAY_SETTLED)
    run("import_returns", str(_return_file(tmp_path, [(txn, "R10", {})])), "--at", RETURN_TIME)
    txn.refresh_from_db()
    assert txn.status == "Returned"
    assert txn.late_returned_at == datetime(2026, 12, 8, 14, tzinfo=UTC)
    assert txn.settlement is not None  # the original settlement stays

    summary = run("settle", "--at", "2026-12-08T22:00:00Z")

    assert summary == {
        "settlements": 0,
        "transactions": 0,
        "lateReturnSettlements": 1,
        "unwrittenBatches": [],
        "filesAwaitingBank": [],
        **NO_VALIDATIONS,
    }
    txn.refresh_from_db()
    assert txn.late_return_settlement.kind == "late_return"
    assert txn.late_return_settlement.net_amount == -2500


@pytest.mark.parametrize("code", ["R02", "R03", "R04"])
def test_account_returns_block_the_saved_method(method, tmp_path, code):
    (txn,) = _originated(saved_method_txn(method))
    run("import_returns", str(_return_file(tmp_path, [(txn, code, {})])), "--at", RETURN_TIME)
    method.refresh_from_db()
    assert method.blocked_at == datetime(2026, 12, 8, 14, tzinfo=UTC)
    assert method.blocked_reason == f"{code} {RETURN_CODES[code].reason}"


def test_insufficient_funds_does_not_block_the_method(method, tmp_path):
    (txn,) = _originated(saved_method_txn(method))
    run("import_returns", str(_return_file(tmp_path, [(txn, "R01", {})])), "--at", RETURN_TIME)
    method.refresh_from_db()
    assert method.blocked_at is None


@pytest.mark.parametrize(
    ("txn_type", "status", "code"),
    # A debit meets the account block first (CONTRACT 12); a credit, the saved method's block.
    [("Debit", 409, "account_blocked"), ("Credit", 400, "payment_method_blocked")],
)
def test_blocked_method_is_refused_by_the_charge_endpoint(api_client, method, tmp_path, txn_type, status, code):
    (txn,) = _originated(saved_method_txn(method))
    run("import_returns", str(_return_file(tmp_path, [(txn, "R02", {})])), "--at", RETURN_TIME)
    response = api_client.put(
        "/transactions",
        {
            "method": "ACH",
            "type": txn_type,
            "standardEntryClassCode": "PPD",
            "amount": 100,
            "customerUuid": str(method.customer.uuid),
            "paymentMethodUuid": str(method.uuid),
            "paymentDetails": PLACEHOLDER_DETAILS,
        },
        format="json",
    )
    assert response.status_code == status, response.content
    assert response.json()["errors"][0]["code"] == code


NOC_CASES = [
    ("C01", {"accountNumber": "5550001111"}, "021000021", "5550001111", "Checking"),
    ("C02", {"routingNumber": "011000015"}, "011000015", "000123456789", "Checking"),
    ("C03", {"routingNumber": "011000015", "accountNumber": "5550001111"}, "011000015", "5550001111", "Checking"),
    ("C05", {"accountType": "Savings"}, "021000021", "000123456789", "Savings"),
    ("C06", {"accountNumber": "5550001111", "accountType": "Savings"}, "021000021", "5550001111", "Savings"),
    (
        "C07",
        {"routingNumber": "011000015", "accountNumber": "5550001111", "accountType": "Savings"},
        "011000015",
        "5550001111",
        "Savings",
    ),
]


@pytest.mark.parametrize(("code", "corrected", "routing", "account", "account_type"), NOC_CASES)
def test_notice_of_change_corrects_the_saved_method(method, tmp_path, code, corrected, routing, account, account_type):
    (txn,) = _originated(saved_method_txn(method))
    summary = run("import_returns", str(_return_file(tmp_path, [(txn, code, corrected)])), "--at", RETURN_TIME)

    assert (summary["returns"], summary["notices"], summary["unmatched"]) == (0, 1, [])
    method.refresh_from_db()
    assert (method.routing_number, method.account_number, method.account_type) == (routing, account, account_type)
    assert method.account_hash == crypto.account_pair_hash(routing, account)
    assert method.last_four == account[-4:]
    notice = ChangeNotice.objects.get(transaction=txn)
    assert notice.change_code == code and notice.change_reason == CHANGE_CODES[code].reason
    assert notice.changed_at == notice.noc_received_at == datetime(2026, 12, 8, 14, tzinfo=UTC)
    assert set(notice.new_value) == set(corrected)
    if "accountNumber" in corrected:
        assert notice.old_value["accountNumber"] == "****6789"
        assert notice.new_value["accountNumber"] == "****" + account[-4:]
    if "routingNumber" in corrected:
        assert (notice.old_value["routingNumber"], notice.new_value["routingNumber"]) == ("021000021", routing)
    txn.refresh_from_db()
    assert txn.status == "Processing"  # a NOC does not return the entry
    assert txn.account_number == "000123456789"  # what was charged stays as charged


def test_next_charge_uses_the_corrected_account(api_client, method, tmp_path):
    (txn,) = _originated(saved_method_txn(method))
    run("import_returns", str(_return_file(tmp_path, [(txn, "C01", {"accountNumber": "5550001111"})])))
    response = api_client.put(
        "/transactions",
        {
            "method": "ACH",
            "type": "Debit",
            "amount": 100,
            "customerUuid": str(method.customer.uuid),
            "paymentMethodUuid": str(method.uuid),
            "paymentDetails": PLACEHOLDER_DETAILS,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert Transaction.objects.get(uuid=response.json()["data"]["uuid"]).account_number == "5550001111"


def test_unmatched_entries_are_reported_not_dropped(company, tmp_path):
    known, stranger = _originated(bank_txn(company), bank_txn(company))
    path = _return_file(tmp_path, [(known, "R01", {}), (stranger, "R03", {})])
    Transaction.objects.filter(pk=stranger.pk).update(trace_number="021000029999999")

    summary = run("import_returns", str(path))

    assert summary["returns"] == 1
    assert summary["unmatched"] == [stranger.trace_number]


def test_reimporting_the_same_file_is_idempotent(company, tmp_path):
    (txn,) = _originated(bank_txn(company))
    path = _return_file(tmp_path, [(txn, "R01", {})])
    first = run("import_returns", str(path), "--at", RETURN_TIME)
    copy = tmp_path / "copy-of-returns.ach"
    copy.write_bytes(path.read_bytes())
    again = run("import_returns", str(copy), "--at", "2026-12-09T14:00:00Z")
    assert again == {**first, "alreadyImported": True} and first["alreadyImported"] is False
    assert IngestionFile.objects.count() == 1 and TransactionReturn.objects.count() == 1
    txn.refresh_from_db()
    assert txn.return_entry.returned_at == datetime(2026, 12, 8, 14, tzinfo=UTC)


def test_a_second_return_for_the_same_entry_is_reported_unmatched(company, tmp_path):
    (txn,) = _originated(bank_txn(company))
    run("import_returns", str(_return_file(tmp_path, [(txn, "R01", {})], "one.ach")))
    summary = run("import_returns", str(_return_file(tmp_path, [(txn, "R01", {}), (txn, "R09", {})], "two.ach")))
    assert (summary["returns"], summary["unmatched"]) == (0, [txn.trace_number, txn.trace_number])
    assert TransactionReturn.objects.get().return_code == "R01"


def test_csv_returns_and_notices(method, company, tmp_path):
    returned, corrected = _originated(bank_txn(company), saved_method_txn(method))
    path = tmp_path / "returns.csv"
    path.write_text(
        return_csv(
            [
                f"return,{returned.trace_number},R01,,,",
                f"noc,{corrected.trace_number},C06,,5550001111,savings",
                "return,999999999999999,R01,,,",
            ]
        )
    )
    summary = run("import_returns", str(path), "--at", RETURN_TIME)
    assert (summary["returns"], summary["notices"], summary["unmatched"]) == (1, 1, ["999999999999999"])
    assert IngestionFile.objects.get().file_format == "csv"
    method.refresh_from_db()
    assert (method.account_number, method.account_type) == ("5550001111", "Savings")
    returned.refresh_from_db()
    assert returned.status == "Returned" and returned.return_entry.return_code == "R01"
    assert returned.return_code == "R01"  # the copy `returncode` filters read, kept by a trigger


@pytest.mark.parametrize(
    "content",
    [
        "not,a,known\nheader,x,y\n",
        "record_type,original_trace_number,code\nrefund,021000020000001,R01\n",
        "record_type,original_trace_number,code\nreturn,021000020000001,R99\n",
        "1" + "x" * 93 + "\n" + "6" * 50 + "\n",
    ],
)
def test_malformed_files_are_command_errors_and_change_nothing(db, tmp_path, content):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(CommandError):
        run("import_returns", str(path))
    assert IngestionFile.objects.count() == 0


def test_missing_file_is_a_command_error(db, tmp_path):
    with pytest.raises(CommandError):
        run("import_returns", str(tmp_path / "nope.ach"))


def test_notice_for_a_one_off_transaction_is_recorded_without_a_method(company, tmp_path):
    (txn,) = _originated(bank_txn(company))
    run("import_returns", str(_return_file(tmp_path, [(txn, "C02", {"routingNumber": "011000015"})])))
    notice = ChangeNotice.objects.get()
    assert notice.old_value == {"routingNumber": "021000021"} and notice.new_value == {"routingNumber": "011000015"}


def test_notice_with_an_invalid_routing_number_is_not_applied(method, tmp_path):
    (txn,) = _originated(saved_method_txn(method))
    summary = run("import_returns", str(_return_file(tmp_path, [(txn, "C02", {"routingNumber": "123456789"})])))
    assert summary["unmatched"] == []
    assert summary["exceptions"] == [
        {
            "trace": txn.trace_number,
            "code": "C02",
            "reason": "corrected routingNumber is not a 9-digit routing number with a valid check digit",
        }
    ]
    method.refresh_from_db()
    assert method.routing_number == "021000021"


def test_returns_for_several_companies_in_one_file(company, other_company, tmp_path):
    mine, theirs = _originated(bank_txn(company), bank_txn(other_company))
    summary = run("import_returns", str(_return_file(tmp_path, [(mine, "R01", {}), (theirs, "R08", {})])))
    assert summary["returns"] == 2
    theirs.refresh_from_db()
    assert theirs.return_entry.return_code == "R08" and theirs.return_entry.company_id == other_company.pk


def test_a_crash_midway_applies_none_of_the_company_and_the_rerun_applies_all(method, company, tmp_path, monkeypatch):
    returned, corrected = _originated(bank_txn(company), saved_method_txn(method))
    path = _return_file(tmp_path, [(returned, "R01", {}), (corrected, "C01", {"accountNumber": "5550001111"})])

    def crash(*args, **kwargs):
        raise RuntimeError("worker killed")

    monkeypatch.setattr("transactions.ach.returns._apply_notice", crash)
    with pytest.raises(RuntimeError):
        run("import_returns", str(path))
    returned.refresh_from_db()
    assert returned.status == "Processing" and not TransactionReturn.objects.exists()
    (ingestion,) = IngestionFile.objects.all()
    assert ingestion.applying and ingestion.summary == {} and not ingestion.parts.exists()
    monkeypatch.undo()

    summary = run("import_returns", str(path))

    assert (summary["returns"], summary["notices"], summary["alreadyImported"]) == (1, 1, False)
    returned.refresh_from_db()
    assert returned.status == "Returned"
    assert run("import_returns", str(path)) == {**summary, "alreadyImported": True}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_imports_of_one_file_apply_it_once(company, tmp_path):
    (txn,) = _originated(bank_txn(company))
    path = _return_file(tmp_path, [(txn, "R01", {})])
    results = at_once(lambda: run("import_returns", str(path)), 3)
    # One run applies it; the others answer its summary, saying they imported nothing.
    assert sorted(result.pop("alreadyImported") for result in results) == [False, True, True]
    assert len(results) == 3 and results[0] == results[1] == results[2]
    assert results[0]["returns"] == 1
    assert TransactionReturn.objects.count() == 1 and IngestionFile.objects.count() == 1
