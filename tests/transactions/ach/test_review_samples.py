"""The ACH review's sample files (ach-samples, copied under data/: CI's shared copy may differ) give the right
outcome: imported, refused whole with a clear one-line reason, or parked as exceptions; never a traceback.

Each return / NOC sample names entries of the review's own run. To aim them at entries this test originates,
each entry of ours copies what the sample's entry record says (direction, account type, routing number, amount)
and the sample's original trace numbers, account numbers, Company Identification and file date are replaced by
ours (a return applies only to the entry that agrees with all of them, CONTRACT 12 "Matching"): none of them
enters a control total, so the file's batch and file controls still add up."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from mandates.models import Mandate
from schedules.models import Schedule, ScheduledDebit
from tests import factories
from tests.transactions.ach.conftest import MONDAY_SETTLED, bank_txn, run
from transactions.models import DishonoredReturn, ParkedReturnItem, Settlement, Transaction, TransactionReturn
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

SAMPLES = Path(__file__).parent / "data" / "ach-samples"
SAMPLES_2026_12 = Path(__file__).parent / "data" / "ach-samples-2026-12"  # the second ACH review's
RETURN_TIME = "2026-12-08T14:00:00Z"
NOT_FOR_US = "file header immediate destination is '091000019', expected '021000021': not a file for us"
# A saved-method charge still carries valid paymentDetails (SPEC 4.7 rule 2); the saved method's replace them.
PLACEHOLDER_DETAILS = {"name": "x", "accountType": "Checking", "accountNumber": "1111", "routingNumber": "021000021"}
NO_RETURN_TO_ANSWER = {
    "dishonored": "dishonored return with no return of this entry to answer",
    "contested": "contested return with no return of this entry to answer",
}


def _addenda_entries(lines: list[str]) -> list[tuple[int, str]]:
    """(line index of each addenda 98/99, the entry record before it)."""
    found, entry = [], None
    for index, line in enumerate(lines):
        if line.startswith("6"):
            entry = line
        elif line.startswith(("798", "799")):
            found.append((index, entry))
    return found


def _entry_like(company, entry: str, *, method=None, **more) -> Transaction:
    """A transaction of ours as the sample's entry record describes it (a NOC's amount is 0: any amount matches)."""
    code, routing, amount = entry[1:3], entry[3:12], int(entry[29:39]) or 500
    fields = {
        "type": "Debit" if code[1] in "6789" else "Credit",
        "account_type": "Savings" if code[0] == "3" else "Checking",
        "routing_number": routing,
        "amount": amount,
        "standard_entry_class_code": "PPD",
    }
    if method is not None:
        fields.update(customer=method.customer, payment_method=method, account_number=method.account_number)
        method.routing_number, method.account_type = routing, fields["account_type"]
        method.save(update_fields=["routing_number", "account_type"])
    return bank_txn(company, **fields, **more)


def _adapted(
    name: str,
    company,
    tmp_path,
    *,
    methods=None,
    samples: Path = SAMPLES,
    originate_at: str = "2026-12-04T15:00:00Z",
    file_date: str | None = None,
    **entry_fields,
) -> tuple[Path, list[Transaction]]:
    """The sample aimed at entries this test originates: (the file, our entry per addenda, in file order; addenda
    naming one original trace name one entry of ours). `methods` maps an addenda's position to the saved method its
    entry charges; by default the entries go out the Friday before and settle Monday."""
    lines = (samples / name).read_text().split("\n")
    addenda = _addenda_entries(lines)
    methods = methods or {}
    ours: dict[str, Transaction] = {}
    txns = []
    for n, (index, entry) in enumerate(addenda):
        original = lines[index][6:21]
        if original not in ours:
            ours[original] = _entry_like(company, entry, method=methods.get(n), **entry_fields)
        txns.append(ours[original])
    # The Friday before: every entry settles Monday as a next-day entry, also those above Same Day's $1M cap.
    run("originate", "--at", originate_at)
    for (index, _), txn in zip(addenda, txns, strict=True):
        txn.refresh_from_db()
        lines[index] = lines[index][:6] + txn.trace_number + lines[index][21:]
        entry = lines[index - 1]
        lines[index - 1] = entry[:12] + txn.account_number.ljust(17) + entry[29:]
    lines = [_aimed_at(line, company, file_date) for line in lines]
    path = tmp_path / name
    path.write_text("\n".join(lines))
    return path, txns


# Where a record carries what the sample's file was for: the file header's creation date, the Company Identification
# of a batch header and of a batch control.
FILE_DATE, HEADER_COMPANY, CONTROL_COMPANY = slice(23, 29), slice(40, 50), slice(44, 54)
RETURN_FILE_DATE = "261208"  # the day after our entries settle


def _aimed_at(line: str, company, file_date: str | None = None) -> str:
    def put(where: slice, value: str) -> str:
        return line[: where.start] + value.ljust(where.stop - where.start) + line[where.stop :]

    if line.startswith("1"):
        return put(FILE_DATE, file_date or RETURN_FILE_DATE)
    if line.startswith("5"):
        return put(HEADER_COMPANY, company.ach_company_id)
    if line.startswith("8"):
        return put(CONTROL_COMPANY, company.ach_company_id)
    return line


def _return_first(txns, tmp_path, code: str = "R01") -> None:
    """The returns the dishonors answer, as the RDFI sent them earlier."""
    path = tmp_path / "earlier-returns.ach"
    path.write_text(return_file_for([(txn, code, {}) for txn in txns], at=datetime(2026, 12, 8, 12, tzinfo=UTC)))
    assert run("import_returns", str(path), "--at", "2026-12-08T13:00:00Z")["returns"] == len(txns)


def _import(path: Path) -> dict:
    return run("import_returns", str(path), "--at", RETURN_TIME)


def _statuses(txns) -> list[str]:
    return [Transaction.objects.get(pk=txn.pk).status for txn in txns]


def test_every_sample_file_is_imported_refused_or_parked_never_a_traceback(company, tmp_path):
    """As the review left them (their entries are not ours): nothing applied, nothing lost, no traceback."""
    for path in sorted(SAMPLES.glob("*.ach")):
        if path.name.startswith("out_"):  # files we sent: not addressed to us
            with pytest.raises(CommandError, match=f"^{path.name}: {NOT_FOR_US}$"):
                _import(path)
            continue
        summary = _import(path)
        items = len(_addenda_entries(path.read_text().split("\n")))
        assert (summary["returns"], summary["notices"]) == (0, 0), path.name
        # Every item parked with its reason (an item naming no entry is also listed in `unmatched`).
        assert len(summary["exceptions"]) == items, path.name
        assert set(summary["unmatched"]) <= {item["trace"] for item in summary["exceptions"]}, path.name
    assert Transaction.objects.count() == 0 and TransactionReturn.objects.count() == 0


def test_r01_beside_an_unknown_r97_is_applied_and_the_r97_parked(company, tmp_path):
    path, (r01, r97) = _adapted("ret_R01_plus_R97_whole_file_refused.ach", company, tmp_path)
    summary = _import(path)
    assert (summary["returns"], summary["unmatched"]) == (1, [])
    assert summary["exceptions"] == [{"trace": r97.trace_number, "code": "R97", "reason": "unknown return code"}]
    assert _statuses([r01, r97]) == ["Returned", "Processing"]
    parked = ParkedReturnItem.objects.get()
    assert (parked.trace_number, parked.code, parked.transaction_uuid) == (r97.trace_number, "R97", r97.uuid)


def test_a_file_with_trimmed_trailing_spaces_is_read_as_nacha(company, tmp_path):
    path, (txn,) = _adapted("ret_trailing_spaces_trimmed_R01.ach", company, tmp_path)
    assert min(len(line) for line in path.read_text().split("\n") if line) < 94
    summary = _import(path)
    assert (summary["returns"], summary["unmatched"], summary["exceptions"]) == (1, [], [])
    assert _statuses([txn]) == ["Returned"]


@pytest.mark.parametrize(
    ("name", "kinds"),
    [
        ("ret_R61_R69_dishonored.ach", ["dishonored", "dishonored"]),
        ("ret_R68_dishonored_applied_as_return.ach", ["dishonored"]),
        ("ret_R71_contested_dishonored.ach", ["contested"]),
    ],
)
def test_dishonor_samples_on_settled_entries_move_no_money_and_are_parked(company, tmp_path, name, kinds):
    """Review d-1: an R61 on a settled $2M debit became a -$1,999,918.12 late-return settlement. With no return
    of the entry to answer, a dishonor is parked: the entry stays Settled and `settle` moves nothing."""
    path, txns = _adapted(name, company, tmp_path)
    run("settle", "--at", MONDAY_SETTLED)
    summary = _import(path)
    assert (summary["returns"], summary["dishonoredReturns"], summary["contestedReturns"]) == (0, 0, 0)
    assert [item["reason"] for item in summary["exceptions"]] == [NO_RETURN_TO_ANSWER[kind] for kind in kinds]
    assert _statuses(txns) == ["Settled"] * len(txns)
    assert all(txn.late_returned_at is None for txn in Transaction.objects.all())
    assert run("settle", "--at", "2026-12-08T22:00:00Z")["lateReturnSettlements"] == 0
    assert not Settlement.objects.filter(kind="late_return").exists()


def test_a_contested_sample_answering_a_return_we_never_dishonored_is_parked(company, tmp_path):
    """Review 2026-12-02 N7: an R71 contests a dishonor; after a return alone there is none of ours to answer."""
    path, txns = _adapted("ret_R71_contested_dishonored.ach", company, tmp_path)
    _return_first(txns, tmp_path)
    summary = _import(path)
    assert (summary["returns"], summary["contestedReturns"]) == (0, 0)
    assert [item["reason"] for item in summary["exceptions"]] == [
        "contested return with no dishonored return to answer"
    ]
    assert not DishonoredReturn.objects.exists()
    assert _statuses(txns) == ["Returned"]


@pytest.mark.parametrize(
    ("name", "kinds"),
    [
        ("ret_R61_R69_dishonored.ach", ["dishonored", "dishonored"]),
        ("ret_R68_dishonored_applied_as_return.ach", ["dishonored"]),
    ],
)
def test_dishonor_samples_answering_our_returns_are_recorded_beside_them(company, tmp_path, name, kinds):
    path, txns = _adapted(name, company, tmp_path)
    _return_first(txns, tmp_path)
    summary = _import(path)
    assert summary["returns"] == 0 and summary["exceptions"] == [] and summary["unmatched"] == []
    assert (summary["dishonoredReturns"], summary["contestedReturns"]) == (
        kinds.count("dishonored"),
        kinds.count("contested"),
    )
    records = DishonoredReturn.objects.order_by("pk")
    assert [(record.kind, record.transaction_id) for record in records] == list(
        zip(kinds, [txn.pk for txn in txns], strict=True)
    )
    assert all(record.transaction_return.return_code == "R01" for record in records)
    assert all(record.company_id == company.pk for record in records)
    assert _statuses(txns) == ["Returned"] * len(txns)  # still the R01's doing, nothing more


def test_a_refused_c61_is_parked_and_the_c01_beside_it_applied(company, tmp_path):
    method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    path, (_, c61) = _adapted("noc_C61_refused_whole_file.ach", company, tmp_path, methods={0: method})

    summary = _import(path)

    assert (summary["notices"], summary["unmatched"]) == (1, [])
    assert summary["exceptions"] == [
        {
            "trace": c61.trace_number,
            "code": "C61",
            "reason": "refused notification of change (Misrouted Notification of Change): nothing to correct",
        }
    ]
    method.refresh_from_db()
    assert method.account_number == "5550001111"


def test_a_c04_corrects_the_name_the_method_charges_in(company, api_client, tmp_path):
    customer = factories.CustomerFactory(company=company, first_name="No", last_name="Type")
    method = factories.PaymentMethodFactory(customer=customer)
    path, _ = _adapted("noc_C04_name_not_applied.ach", company, tmp_path, methods={0: method})
    waiting = bank_txn(
        company, customer=customer, payment_method=method, name="No Type", effective_date=datetime(2026, 12, 9).date()
    )

    summary = _import(path)

    assert (summary["notices"], summary["exceptions"]) == (1, [])
    method.refresh_from_db()
    assert method.corrected_name == "NEWNAME NOHOLD"
    waiting.refresh_from_db()
    assert waiting.name == "NEWNAME NOHOLD"  # not yet in a file: goes out in the corrected name
    shown = api_client.get(f"/customers/{customer.uuid}/payment-methods/{method.uuid}").json()["data"]
    assert shown["correctedName"] == "NEWNAME NOHOLD"
    charged = api_client.put(
        "/transactions",
        {
            "amount": 700,
            "method": "ACH",
            "type": "Credit",
            "customerUuid": str(customer.uuid),
            "paymentMethodUuid": str(method.uuid),
            "paymentDetails": PLACEHOLDER_DETAILS,
        },
        format="json",
    )
    assert charged.status_code == 201, charged.content
    assert charged.json()["data"]["paymentDetails"]["name"] == "NEWNAME NOHOLD"


# The second ACH review's return files (2026-12-02; data/ach-samples-2026-12/README.md).


def test_2026_12_ret1_applies_what_it_can_and_parks_r97_c61_r61_r77(company, tmp_path):
    path, txns = _adapted("ret1_mixed_R97_C61_R61_R77_C04.ach", company, tmp_path, samples=SAMPLES_2026_12)

    summary = _import(path)

    codes = ["R01", "R03", "R02", "C01", "C01", "R10", "R97", "C61", "C04", "R61", "R01", "R77"]
    assert (summary["returns"], summary["notices"], summary["unmatched"]) == (5, 3, [])
    assert [(item["trace"], item["code"]) for item in summary["exceptions"]] == [
        (txn.trace_number, code) for txn, code in zip(txns, codes, strict=True) if code in ("R97", "C61", "R61", "R77")
    ]
    returned = dict(TransactionReturn.objects.values_list("transaction_id", "return_code"))
    assert returned == {
        txn.pk: code for txn, code in zip(txns, codes, strict=True) if code in ("R01", "R02", "R03", "R10")
    }


def test_2026_12_ret2_records_dishonors_beside_our_returns_and_parks_the_second_r68(company, tmp_path):
    path, txns = _adapted("ret2_dishonored_R68_R69_R62.ach", company, tmp_path, samples=SAMPLES_2026_12)
    _return_first(list(dict.fromkeys(txns)), tmp_path)

    summary = _import(path)

    assert (summary["dishonoredReturns"], summary["returns"]) == (3, 0)
    assert summary["exceptions"] == [
        {
            "trace": txns[1].trace_number,
            "code": "R68",
            "reason": "the return of this entry already has a dishonored return",
        }
    ]
    assert _statuses(txns) == ["Returned"] * 4  # a dishonor changes no status


def test_2026_12_ret3_a_contested_return_of_a_return_we_never_dishonored_is_parked(company, tmp_path):
    """Review N7: an R73 was recorded against a return that was never dishonored."""
    path, txns = _adapted("ret3_contested_R73.ach", company, tmp_path, samples=SAMPLES_2026_12)
    _return_first(txns, tmp_path)

    summary = _import(path)

    assert summary["contestedReturns"] == 0
    assert [item["reason"] for item in summary["exceptions"]] == [
        "contested return with no dishonored return to answer"
    ] * 2
    assert not DishonoredReturn.objects.exists()


def test_2026_12_ret5_r07_and_r10_on_the_first_banking_day_after_the_60th_day_are_timely(company, tmp_path):
    """Review N2: entries settled Wednesday 2026-12-02, returned Monday 2027-02-01 (the 60th day is Sunday 01-31)."""
    path, txns = _adapted(
        "ret5_R07_R10_timely_flagged_untimely.ach",
        company,
        tmp_path,
        samples=SAMPLES_2026_12,
        originate_at="2026-12-02T15:00:00Z",
        file_date="270201",
        effective_date=datetime(2026, 12, 2).date(),
    )
    run("settle", "--at", "2026-12-02T22:00:01Z")

    summary = run("import_returns", str(path), "--at", "2027-02-01T14:00:00Z")

    assert (summary["returns"], summary["exceptions"]) == (2, [])
    returns = TransactionReturn.objects.order_by("transaction_id")
    assert [(entry.return_code, entry.due_by.isoformat(), entry.is_untimely) for entry in returns] == [
        ("R07", "2027-02-01", False),
        ("R10", "2027-02-01", False),
    ]


def test_2026_12_ret6_trimmed_records_are_applied(company, tmp_path):
    path, (txn,) = _adapted("ret6_trailing_spaces_trimmed_R01.ach", company, tmp_path, samples=SAMPLES_2026_12)
    summary = _import(path)
    assert (summary["returns"], summary["exceptions"]) == (1, [])
    assert _statuses([txn]) == ["Returned"]


def test_the_contested_sample_is_recorded_beside_our_dishonor_of_the_return(company, tmp_path):
    path, txns = _adapted("ret_R71_contested_dishonored.ach", company, tmp_path)
    _return_first(txns, tmp_path)
    dishonors = tmp_path / "our-dishonors.ach"
    dishonors.write_text(return_file_for([(txn, "R68", {}) for txn in txns], at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    assert run("import_returns", str(dishonors), "--at", "2026-12-08T13:30:00Z")["dishonoredReturns"] == len(txns)

    summary = _import(path)

    assert (summary["contestedReturns"], summary["exceptions"]) == (1, [])
    assert sorted(DishonoredReturn.objects.values_list("kind", flat=True)) == ["contested", "dishonored"]


def test_the_contested_sample_with_no_dishonor_of_ours_is_parked(company, tmp_path):
    """Review 2026-12-02 N7: a contested dishonored return answers our dishonor; without one it is parked."""
    path, txns = _adapted("ret_R71_contested_dishonored.ach", company, tmp_path)
    _return_first(txns, tmp_path)

    summary = _import(path)

    assert summary["contestedReturns"] == 0
    assert [item["reason"] for item in summary["exceptions"]] == [
        "contested return with no dishonored return to answer"
    ]


# The third ACH review's return files (2026-12-07; data/ach-samples-2026-12-07/README.md).
SAMPLES_2026_12_07 = Path(__file__).parent / "data" / "ach-samples-2026-12-07"


def _recurring_mandate(company, method) -> Mandate:
    """The payer's recurring PPD authorization of the method, on paper."""
    return Mandate.objects.create(
        company=company,
        customer=method.customer,
        payment_method=method,
        sec_code="PPD",
        type="recurring",
        channel="paper",
        accepted_at=datetime(2026, 11, 2, tzinfo=UTC),
        text="I authorize weekly debits.",
        text_sha256="0" * 64,
    )


def test_2026_12_07_the_r11_sample_voids_the_debit_still_unsent_under_the_mandate_it_revokes(
    company, tmp_path, ordinary_banking_day
):
    hal = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    mandate = _recurring_mandate(company, hal)
    path, txns = _adapted(
        "ret_20261216_R01_R11_R02_C04.ach", company, tmp_path, methods={1: hal}, samples=SAMPLES_2026_12_07
    )
    later = bank_txn(
        company, customer=hal.customer, payment_method=hal, mandate=mandate, effective_date=datetime(2026, 12, 28)
    )

    summary = _import(path)

    assert (summary["returns"], summary["notices"]) == (3, 1)
    mandate.refresh_from_db()
    assert (mandate.status, mandate.revoked_reason[:8]) == ("revoked", "return R")
    later.refresh_from_db()
    assert (later.status, later.failure_reason) == ("Voided", f"mandate revoked: {mandate.revoked_reason}")
    assert run("originate", "--at", "2026-12-24T15:00:00Z")["transactions"] == 0  # nothing sent on 12-24


def test_2026_12_07_the_r01_sample_on_a_schedules_debit_does_not_stop_the_schedule(
    company, api_client, tmp_path, ordinary_banking_day
):
    gil = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    mandate = _recurring_mandate(company, gil)
    schedule = Schedule.objects.create(
        company=company,
        customer=gil.customer,
        payment_method=gil,
        mandate=mandate,
        amount=2500,
        interval="weekly",
        start_date=datetime(2026, 12, 7).date(),
        count=3,
        next_index=1,
        next_notice_index=1,
    )
    path, (first,) = _adapted(
        "ret_20261217_R01_schedule_debit.ach",
        company,
        tmp_path,
        methods={0: gil},
        samples=SAMPLES_2026_12_07,
        mandate=mandate,
    )
    ScheduledDebit.objects.create(company=company, schedule=schedule, date=first.effective_date, transaction=first)
    assert _import(path)["returns"] == 1

    summary = run("run_schedules", "--at", "2026-12-10T15:00:00Z")

    assert (summary["debits"], summary["stopped"], summary["refused"]) == (1, 0, [])
    assert api_client.get(f"/schedules/{schedule.uuid}").json()["data"]["status"] == "active"
