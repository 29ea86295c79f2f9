"""CONTRACT 12 through the API and back out of the NACHA file: SEC code by direction and holder, RCC as an honest
ACH TEL entry, Same Day ACH as an opt-in with its $1M cap and the company's windows, reserved descriptions, the
Payment Type Code of WEB and TEL entries (ACH review 2026-11-25, section d items 2, 3 and 10)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from tests import factories
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import run
from tests.transactions.conftest import bank_details, put_charge
from transactions.methods.sec_codes import SEC_RULES, payment_type_code
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

# Monday 2031-01-06: a business day well after any charge made today, so everything made now is due.
MONDAY_10_00 = "2031-01-06T15:00:00Z"  # 10:00 Eastern: before every same-day window closes
MONDAY_16_50 = "2031-01-06T21:50:00Z"  # 16:50 Eastern: after the default last window (16:45)
MONDAY, TUESDAY = "310106", "310107"


@pytest.fixture
def consumer(customer):
    return customer  # Ada Lovelace, accountHolderType consumer


@pytest.fixture
def organization(company):
    return factories.CustomerFactory(
        company=company, account_holder_type="organization", first_name="", last_name="", company_name="Beta Corp"
    )


@pytest.fixture
def big_limits(company):
    company.merchant_settings.hold_over = company.merchant_settings.decline_over = 10**12
    company.merchant_settings.save()
    return company


def _charge(api_client, customer=None, **fields):
    body = {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": bank_details(), **fields}
    if customer is not None:
        body["customerUuid"] = str(customer.uuid)
    return put_charge(api_client, body)


def _created(api_client, customer=None, **fields) -> dict:
    response = _charge(api_client, customer, **fields)
    assert response.status_code == 201, response.content
    return response.json()["data"]


def _refused(response, field: str, code: str) -> str:
    assert response.status_code == 400, response.content
    error = response.json()["errors"][0]
    assert (error["field"], error["code"]) == (field, code)
    assert not Transaction.objects.exists()
    return response.json()["message"]


def _file(at: str) -> nacha_reader.ReadFile:
    summary = run("originate", "--at", at)
    assert len(summary["files"]) == 1, summary
    return nacha_reader.read(Path(summary["files"][0]).read_text())


def _entries_by_id(read: nacha_reader.ReadFile) -> dict[str, tuple[nacha_reader.ReadBatch, nacha_reader.ReadEntry]]:
    return {entry.individual_id: (batch, entry) for batch in read.batches for entry in batch.entries}


# SEC code by direction and holder (review d3) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("holder", "code", "type", "allowed"),
    [
        ("consumer", "WEB", "Debit", True),
        ("consumer", "WEB", "Credit", False),  # a WEB refund: refunds are PPD
        ("consumer", "TEL", "Debit", True),
        ("consumer", "TEL", "Credit", False),  # moov rejects the whole TEL batch (review f1:31)
        ("consumer", "PPD", "Debit", True),
        ("consumer", "PPD", "Credit", True),
        ("consumer", "CCD", "Debit", False),  # CCD to a consumer: R05 within 60 days
        ("consumer", "CCD", "Credit", False),
        ("organization", "CCD", "Debit", True),
        ("organization", "CCD", "Credit", True),
        ("organization", "PPD", "Debit", False),
        ("organization", "WEB", "Debit", False),
        ("organization", "TEL", "Debit", False),
        (None, "WEB", "Debit", True),  # no customer: the direction rule only
        (None, "CCD", "Debit", True),
        (None, "PPD", "Credit", True),
        (None, "WEB", "Credit", False),
        (None, "TEL", "Credit", False),
    ],
)
def test_sec_code_fits_direction_and_holder(api_client, request, holder, code, type, allowed):
    customer = request.getfixturevalue(holder) if holder else None
    response = _charge(api_client, customer, type=type, standardEntryClassCode=code)
    if allowed:
        assert response.status_code == 201, response.content
        assert response.json()["data"]["standardEntryClassCode"] == code
    else:
        message = _refused(response, "standardEntryClassCode", "sec_code_not_allowed")
        assert message.startswith(code)  # names the rule: "WEB is a debit to a consumer's account, ..."


@pytest.mark.parametrize(
    ("names", "type", "expected"),
    [
        ({"account_holder_type": "consumer"}, "Debit", "WEB"),
        ({"account_holder_type": "consumer"}, "Credit", "PPD"),
        ({"account_holder_type": "organization"}, "Debit", "CCD"),
        ({"account_holder_type": "organization"}, "Credit", "CCD"),
        # No accountHolderType: first and last name make a consumer, a companyName alone an organization.
        ({"account_holder_type": "", "first_name": "Jo", "last_name": "Doe"}, "Credit", "PPD"),
        ({"account_holder_type": "", "first_name": "", "last_name": "", "company_name": "Acme"}, "Debit", "CCD"),
    ],
)
def test_default_sec_code_follows_the_holder(api_client, company, names, type, expected):
    customer = factories.CustomerFactory(company=company, **names)
    assert _created(api_client, customer, type=type)["standardEntryClassCode"] == expected


def test_a_charge_with_no_customer_defaults_by_direction(api_client):
    assert _created(api_client)["standardEntryClassCode"] == "WEB"
    assert _created(api_client, type="Credit")["standardEntryClassCode"] == "PPD"


def test_the_file_carries_no_web_or_tel_credit_and_no_consumer_code_for_an_organization(
    api_client, consumer, organization
):
    consumer_credit = _created(api_client, consumer, type="Credit")  # a refund: PPD, not WEB
    org_debit = _created(api_client, organization)
    web_debit = _created(api_client, consumer)
    read = _file(MONDAY_10_00)
    entries = _entries_by_id(read)
    assert entries[str(consumer_credit["numericId"])][0].sec == "PPD"
    assert entries[str(org_debit["numericId"])][0].sec == "CCD"
    assert entries[str(web_debit["numericId"])][0].sec == "WEB"
    for batch in read.batches:
        if batch.sec in ("WEB", "TEL"):
            assert all(entry.transaction_code in nacha_reader.DEBIT_CODES for entry in batch.entries)


# RCC is an ACH TEL entry (review d10) ---------------------------------------------------------------------------


def test_rcc_follows_every_tel_rule(api_client, consumer, organization):
    credit = _charge(api_client, consumer, method="RCC", type="Credit")
    assert "RCC is sent as an ACH TEL entry" in _refused(credit, "standardEntryClassCode", "sec_code_not_allowed")
    to_business = _charge(api_client, organization, method="RCC")
    _refused(to_business, "standardEntryClassCode", "sec_code_not_allowed")


def test_rcc_keeps_its_method_shows_tel_and_goes_out_as_a_tel_entry(api_client, consumer):
    rcc = _created(api_client, consumer, method="RCC", isSameDay=True)
    assert (rcc["method"], rcc["standardEntryClassCode"]) == ("RCC", "TEL")
    batch, entry = _entries_by_id(_file(MONDAY_10_00))[str(rcc["numericId"])]
    assert (batch.sec, entry.transaction_code, entry.payment_type) == ("TEL", "27", "S")
    record = api_client.get(f"/transactions/{rcc['uuid']}").json()["data"]
    assert (record["method"], record["standardEntryClassCode"], record["isSameDay"]) == ("RCC", "TEL", True)


# Same Day ACH is opt-in (review d2) -----------------------------------------------------------------------------


def test_without_is_same_day_the_entry_goes_out_next_day_and_apart_from_same_day_ones(api_client, consumer):
    next_day = _created(api_client, consumer)
    same_day = _created(api_client, consumer, isSameDay=True)
    assert (next_day["isSameDay"], same_day["isSameDay"]) == (False, True)  # the request, until batched
    entries = _entries_by_id(_file(MONDAY_10_00))
    next_batch, _ = entries[str(next_day["numericId"])]
    same_batch, _ = entries[str(same_day["numericId"])]
    assert (next_batch.effective_date, same_batch.effective_date) == (TUESDAY, MONDAY)
    assert next_batch.number != same_batch.number  # same-day and next-day entries never share a batch
    for data, expected_day, expected_flag in ((next_day, "2031-01-07", False), (same_day, "2031-01-06", True)):
        record = api_client.get(f"/transactions/{data['uuid']}").json()["data"]
        assert (record["effectiveDate"], record["isSameDay"]) == (expected_day, expected_flag)
    rows = api_client.get(
        "/reporting/transactions", {"page": 0, "pageSize": 10, "columns": "uuid,isSameDay,effectiveDate"}
    ).json()["data"]
    assert {row["uuid"]: row["isSameDay"] for row in rows} == {next_day["uuid"]: False, same_day["uuid"]: True}


def test_same_day_is_capped_at_one_million_dollars(api_client, consumer, big_limits):
    over = _charge(api_client, consumer, amount=100_000_001, isSameDay=True)
    assert "1,000,000" in _refused(over, "isSameDay", "same_day_not_allowed")
    at_cap = _created(api_client, consumer, amount=100_000_000, isSameDay=True)
    big = _created(api_client, consumer, amount=200_000_000)  # over the cap without isSameDay: next day
    entries = _entries_by_id(_file(MONDAY_10_00))
    assert entries[str(at_cap["numericId"])][0].effective_date == MONDAY
    assert entries[str(big["numericId"])][0].effective_date == TUESDAY


@pytest.mark.parametrize("method", ["RTP", "CRD"])
def test_same_day_is_for_nacha_entries_only(api_client, method):
    details = {"paymentDetails": {**bank_details()}} if method == "RTP" else {}
    if method == "CRD":
        details = {"paymentDetails": {"name": "G H", "cardNumber": "4111111111111111", "expirationDate": "12/39"}}
    _refused(_charge(api_client, method=method, isSameDay=True, **details), "isSameDay", "same_day_not_allowed")


def test_a_same_day_request_cut_after_the_companys_last_window_goes_out_next_day(api_client, company, consumer):
    late = _created(api_client, consumer, isSameDay=True)
    batch, _ = _entries_by_id(_file(MONDAY_16_50))[str(late["numericId"])]
    assert batch.effective_date == TUESDAY
    assert api_client.get(f"/transactions/{late['uuid']}").json()["data"]["isSameDay"] is False


def test_the_companys_own_windows_decide(api_client, company, consumer):
    company.merchant_settings.same_day_windows = "10:30,17:30"
    company.merchant_settings.save()
    after_default_last = _created(api_client, consumer, isSameDay=True)
    assert _entries_by_id(_file(MONDAY_16_50))[str(after_default_last["numericId"])][0].effective_date == MONDAY
    company.merchant_settings.same_day_windows = "09:00"
    company.merchant_settings.save()
    before_ten = _created(api_client, consumer, isSameDay=True)
    assert _entries_by_id(_file(MONDAY_10_00))[str(before_ten["numericId"])][0].effective_date == TUESDAY


@pytest.mark.parametrize("value", ["", "25:00", "10:30,09:00", "10:30,10:30", "1030", "10:30;14:45"])
def test_same_day_windows_must_be_ascending_times(company, value):
    company.merchant_settings.same_day_windows = value
    with pytest.raises(ValidationError) as raised:
        company.merchant_settings.full_clean()
    assert "same_day_windows" in raised.value.message_dict


def test_a_future_effective_date_is_honoured(api_client, consumer):
    later = _created(api_client, consumer, effectiveDate="2031-01-08")
    assert run("originate", "--at", MONDAY_10_00)["transactions"] == 0  # settles Wednesday: sent Tuesday
    batch, _ = _entries_by_id(_file("2031-01-07T15:00:00Z"))[str(later["numericId"])]
    assert batch.effective_date == "310108"


# Reserved descriptions, Payment Type Code -----------------------------------------------------------------------


# The near misses the ACH review 2026-12-02 (N6) saw accepted and sent: without spaces, plural, another case.
@pytest.mark.parametrize(
    "description",
    [
        "ACCTVERIFY",
        "REVERSAL",
        "RETRY PYMT",
        "RETURN FEE",
        "RETRYPYMT",
        "RETURNFEE",
        "REVERSALS",
        "Reversals",
        "retry pymt",
        "RETRY.PYMT",
        "acctverify",
        "RETRY-PYMT",
    ],
)
def test_reserved_descriptions_are_written_by_the_service_only(api_client, description):
    message = _refused(
        _charge(api_client, entryDescription=description), "entryDescription", "entry_description_reserved"
    )
    assert description in message and "reserved" in message


@pytest.mark.parametrize("description", ["REVERSE", "RETURNS", "RETRY", "REFUND", "RETURN ITM", "ACCT"])
def test_descriptions_near_a_reserved_one_but_not_it_are_sent(api_client, description):
    assert _created(api_client, entryDescription=description)["entryDescription"] == description


def test_web_and_tel_entries_carry_payment_type_s_and_ppd_ccd_none(api_client, consumer, organization):
    web = _created(api_client, consumer)
    tel = _created(api_client, consumer, standardEntryClassCode="TEL")
    ppd = _created(api_client, consumer, standardEntryClassCode="PPD")
    ccd = _created(api_client, organization)
    entries = _entries_by_id(_file(MONDAY_10_00))
    found = {
        data["standardEntryClassCode"]: entries[str(data["numericId"])][1].payment_type for data in (web, tel, ppd, ccd)
    }
    assert found == {"WEB": "S", "TEL": "S", "PPD": "", "CCD": ""}


def test_the_rules_document_says_the_payment_type_codes_the_file_carries():
    """ACH review L3 (third round): docs/ach-rules.md said WEB/TEL always carry `S`; under a recurring mandate they
    carry `R` (tests/mandates/test_charges.py reads it from the file)."""
    text = " ".join((Path(__file__).resolve().parents[3] / "docs" / "ach-rules.md").read_text().split())
    codes = {(sec, recurring): payment_type_code(sec, recurring=recurring) for sec in SEC_RULES for recurring in (0, 1)}
    assert {code for (sec, _), code in codes.items() if sec in ("WEB", "TEL")} == {"S", "R"}
    assert {code for (sec, _), code in codes.items() if sec in ("PPD", "CCD")} == {""}
    assert (
        "WEB and TEL entries carry Payment Type Code `S` (single entry) in positions 77-78, or `R` (recurring) when "
        "the debit goes under a `recurring` mandate" in text
    )
    assert "PPD and CCD leave them blank" in text


def test_effective_dates_the_file_carries_are_business_days(api_client, consumer):
    _created(api_client, consumer)
    read = _file("2031-01-09T15:00:00Z")  # Thursday: next-day entries settle Friday
    assert {batch.effective_date for batch in read.batches} == {date(2031, 1, 10).strftime("%y%m%d")}
