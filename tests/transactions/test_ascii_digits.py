"""Account, routing and card numbers are ASCII digits at every entry point (review M6): `\\d` and `isdigit`
accept Arabic-Indic, fullwidth and superscript digits, which the NACHA writer used to drop (a debit to another
account)."""

from __future__ import annotations

import pytest

import nacha
from tests import factories
from tests.transactions.ach.conftest import MONDAY_MORNING, return_csv, run
from tests.transactions.conftest import bank_details, card_details, put_charge
from transactions.models import OriginationFile, Transaction

pytestmark = pytest.mark.django_db

ARABIC_NINE = "\u0669"
FULLWIDTH_ONE = "\uff11"
SUPERSCRIPT_TWO = "\u00b2"


@pytest.mark.parametrize(
    ("method", "details", "field"),
    [
        ("ACH", bank_details(accountNumber="12345678" + ARABIC_NINE), "accountNumber"),
        ("ACH", bank_details(accountNumber=FULLWIDTH_ONE * 9), "accountNumber"),
        ("ACH", bank_details(accountNumber="1234567" + SUPERSCRIPT_TWO), "accountNumber"),
        ("ACH", bank_details(routingNumber="02100002" + FULLWIDTH_ONE), "routingNumber"),
        ("CRD", card_details(cardNumber="411111111111111" + FULLWIDTH_ONE), "cardNumber"),
        ("CRD", card_details(cvv="12" + ARABIC_NINE), "cvv"),
    ],
)
def test_charge_with_non_ascii_digits_is_400_and_stores_nothing(api_client, method, details, field):
    response = put_charge(api_client, {"method": method, "type": "Debit", "amount": 1500, "paymentDetails": details})
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == f"paymentDetails.{field}"
    assert not Transaction.objects.exists()


def test_saved_method_with_fullwidth_routing_digits_is_400(api_client, company):
    customer = factories.CustomerFactory(company=company)
    body = {
        "customerUuid": str(customer.uuid),
        "type": "bank",
        "accountType": "Checking",
        "accountNumber": "987654321",
        "routingNumber": "02100002" + FULLWIDTH_ONE,
    }
    response = api_client.post("/customers/payment-methods", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == "routingNumber"


def test_notice_with_superscript_digits_in_the_account_is_not_applied(company, tmp_path, settings):
    settings.OUTBOUND_DIR = tmp_path / "outbound"
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer, account_number="000123456789")
    factories.TransactionFactory(
        company=company,
        customer=customer,
        payment_method=method,
        account_number=method.account_number,
        routing_number=method.routing_number,
        account_type=method.account_type,
        effective_date="2026-12-07",
    )
    run("originate", "--at", MONDAY_MORNING)
    trace = Transaction.objects.get().trace_number
    path = tmp_path / "noc.csv"
    path.write_text(
        return_csv(
            [f"noc,{trace},C01,5550001{SUPERSCRIPT_TWO}11"],
            columns="record_type,original_trace_number,code,corrected_account_number",
        ),
        encoding="utf-8",
    )
    summary = run("import_returns", str(path))
    assert summary["exceptions"] == [
        {"trace": trace, "code": "C01", "reason": "corrected accountNumber is not 4 to 17 digits"}
    ]
    method.refresh_from_db()
    assert method.account_number == "000123456789"


@pytest.mark.parametrize(
    "account_number",
    ["12345678" + ARABIC_NINE, "１２３４５６７８９", "12345678901234567890", "1234\t5678", "12345678\x7f"],
)
def test_nacha_writer_refuses_an_account_number_it_cannot_write_exactly(account_number):
    values = {"record_type": "6", "transaction_code": "27", "account_number": account_number}
    with pytest.raises(nacha.NachaFieldError, match="account_number") as raised:
        nacha.render(nacha.ENTRY_DETAIL, values)
    assert account_number not in str(raised.value)


def test_nacha_writer_refuses_non_ascii_digits_in_a_numeric_field():
    with pytest.raises(nacha.NachaFieldError, match="amount"):
        nacha.render(nacha.ENTRY_DETAIL, {"record_type": "6", "amount": "15" + SUPERSCRIPT_TWO})


def test_originate_with_an_unwritable_account_number_writes_no_file(company, tmp_path, settings):
    """A row stored before the ASCII rule: the command fails clearly and leaves nothing on disk."""
    from django.core.management.base import CommandError

    settings.OUTBOUND_DIR = tmp_path / "outbound"
    factories.TransactionFactory(company=company, account_number="12345678" + ARABIC_NINE, effective_date="2026-12-07")
    with pytest.raises(CommandError, match="account_number"):
        run("originate", "--at", MONDAY_MORNING)
    assert OriginationFile.objects.get().path == ""
    assert not settings.OUTBOUND_DIR.exists() or list(settings.OUTBOUND_DIR.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "written"),
    [("Ada Lovelace", "ADA LOVELACE"), ("Zoë O'Brien", "ZOE O'BRIEN"), ("Ada\tLove\x7flace", "ADALOVELACE")],
)
def test_nacha_writer_upper_cases_names_and_drops_what_it_cannot_write(name, written):
    record = nacha.render(nacha.ENTRY_DETAIL, {"record_type": "6", "individual_name": name})
    assert nacha.parse(nacha.ENTRY_DETAIL, record)["individual_name"].rstrip() == written
