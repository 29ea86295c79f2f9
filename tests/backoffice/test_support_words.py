"""The back office a support agent reads (newcomer review 2026-12-02 N9, N10, N12): a returned or noticed
transaction says why at the top of its page, times are Eastern with their zone, and no internal word shows
("Ach", "api_key:1", "prenote_first", "vk_test_", "var/sandbox", cents)."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

import pytest
from django.contrib.admin import site
from django.contrib.auth.models import Group
from django.test import Client, RequestFactory

from tests import factories
from transactions.models import ChangeNotice, TransactionEvent, TransactionHold, TransactionReturn

pytestmark = pytest.mark.django_db

AT = datetime(2026, 12, 2, 7, 54, tzinfo=UTC)  # 2:54 a.m. Eastern (EST)


@pytest.fixture
def superuser_client() -> Client:
    client = Client()
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True, email="root@example.com"))
    return client


def _text(response) -> str:
    assert response.status_code == 200
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


def test_a_returned_transaction_says_its_code_and_reason_first(superuser_client, company):
    txn = factories.TransactionFactory(company=company, status="Returned")
    TransactionReturn.objects.create(
        company=company,
        transaction=txn,
        return_code="R03",
        return_reason="No Account/Unable to Locate Account",
        returned_at=AT,
    )

    page = _text(superuser_client.get(f"/admin/transactions/transaction/{txn.pk}/change/"))

    fields = page.split("Close", 1)[0].split(str(txn.uuid), 1)[1]  # the page after its title
    why = fields.index("Why: Returned R03: No Account/Unable to Locate Account")
    assert why < fields.index("Status:") and why < fields.index("Amount:")


def test_a_noticed_transaction_says_its_change_code_first(superuser_client, company):
    txn = factories.TransactionFactory(company=company, status="Settled")
    ChangeNotice.objects.create(
        company=company,
        transaction=txn,
        change_code="C01",
        change_reason="Incorrect DFI Account Number",
        changed_at=AT,
        noc_received_at=AT,
    )

    page = _text(superuser_client.get(f"/admin/transactions/transaction/{txn.pk}/change/"))

    fields = page.split(str(txn.uuid), 1)[1]
    assert fields.index("Why: Notice of change C01: Incorrect DFI Account Number") < fields.index("Status:")


def test_times_are_eastern_with_their_zone_and_the_trail_names_who_in_words(superuser_client, company):
    key = factories.issue_api_key(company, name="checkout")
    txn = factories.TransactionFactory(company=company)
    TransactionEvent.objects.filter(transaction=txn).delete()
    TransactionEvent.objects.create(
        company=company,
        transaction=txn,
        event="created",
        to_status="Pending",
        caller="api",
        actor=f"api_key:{key.api_key.pk}",
        at=AT,
    )
    TransactionEvent.objects.create(
        company=company,
        transaction=txn,
        event="originated",
        from_status="Pending",
        to_status="Processing",
        caller="command",
        actor="originate",
        at=AT,
    )

    page = _text(superuser_client.get(f"/admin/transactions/transaction/{txn.pk}/change/"))

    assert "2:54 a.m. EST" in page and "Rtp transaction id" not in page
    assert "the merchant's API key checkout" in page and "the scheduled job originate" in page
    assert "api_key:" not in page


def test_no_internal_words_on_the_pages_support_reads(superuser_client, company):
    factories.TransactionFactory(company=company, method="ACH")
    listing = _text(superuser_client.get("/admin/transactions/transaction/"))
    company_page = _text(superuser_client.get(f"/admin/accounts/company/{company.pk}/change/"))

    assert "ACH" in listing and not re.search(r"\bAch\b|\bCrd\b|\bRcc\b", listing)
    for word in ("prenote_first", "vk_test_", "var/sandbox", "cents", "rollout flag"):
        assert word not in company_page, word


def _cells(page: str, tag: str) -> list[str]:
    return [
        html.unescape(re.sub(r"<[^>]+>|\s+", " ", cell)).strip()
        for cell in re.findall(rf"<{tag}[^>]*>(.*?)</{tag}>", page, re.S)
    ]


def test_the_list_shows_why_an_entry_was_returned_or_held(superuser_client, company):
    returned = factories.TransactionFactory(company=company, status="Returned")
    TransactionReturn.objects.create(
        company=company, transaction=returned, return_code="R03", return_reason="No Account", returned_at=AT
    )
    held = factories.TransactionFactory(company=company, status="HELD")
    TransactionHold.objects.create(company=company, transaction=held, hold_code="AMT", hold_reason="over the limit")

    response = superuser_client.get("/admin/transactions/transaction/")
    assert response.status_code == 200
    table = re.search(r'<table id="result_list">(.*?)</table>', response.content.decode(), re.S).group(1)
    header, *body = [_cells(row, "t[dh]") for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]
    uuid, why = header.index("Uuid"), header.index("Why")
    rows = {row[uuid]: row[why] for row in body}
    assert rows[str(returned.uuid)] == "R03" and rows[str(held.uuid)] == "Held AMT"


def test_the_release_confirmation_says_why_each_entry_was_held_in_the_lists_words(superuser_client, company):
    held = factories.TransactionFactory(company=company, status="HELD", method="ACH")
    TransactionHold.objects.create(company=company, transaction=held, hold_code="VEL", hold_reason="over daily volume")
    listing = _text(superuser_client.get("/admin/transactions/transaction/"))

    page = _text(
        superuser_client.post(
            "/admin/transactions/transaction/", {"action": "release_holds", "_selected_action": [held.pk]}
        )
    )

    assert "Held (VEL): over daily volume" in page
    assert "Held" in listing and "HELD" not in listing and "HELD" not in page


def test_the_list_offers_no_exceptions_to_acknowledge(superuser_client, company):
    factories.TransactionFactory(company=company)
    listing = _text(superuser_client.get("/admin/transactions/transaction/"))
    assert "exception" not in listing.lower() and "Mark selected transactions as seen by support" in listing


def test_a_customers_history_says_who_changed_it_in_words_and_no_empty_reason(superuser_client, company):
    customer = factories.CustomerFactory(company=company)  # made by the API: no back-office user

    page = _text(superuser_client.get(f"/admin/customers/customer/{customer.pk}/history/"))

    assert "the merchant's API or a scheduled job" in page
    assert "Change reason" not in page and "None" not in page


# The review's list of words a support agent should not meet (N12), as they showed on the pages.
JARGON = re.compile(
    r"\b(Ach|Crd|Rcc|Rtp)\b|api_key:|user:\d|prenote_first|vk_test_|var/sandbox|\bcents\b|Sequence uuid|"
    r"Change reason|Acknowledge selected exceptions|rollout flag|/sandbox simulation"
)


def test_no_page_of_the_back_office_says_the_reviews_internal_words(company):
    staff = factories.UserFactory(is_staff=True, email="agent@example.com")
    factories.membership(staff, company, "support")
    staff.groups.set(Group.objects.filter(name__in=["Support", "Risk"]))
    client = Client()
    client.force_login(staff)
    ach = factories.TransactionFactory(company=company, method="ACH")
    rtp = factories.TransactionFactory(company=company, method="RTP", rtp_transaction_id="RTP0A1B")
    customer = factories.CustomerFactory(company=company)
    client.post(
        f"/admin/customers/customer/{customer.pk}/change/",
        {
            **{name: getattr(customer, name) for name in ("status", "account_holder_type", "first_name", "email")},
            **{name: getattr(customer, name) for name in ("last_name", "company_name", "customer_id", "phone")},
            "last_name": "Hopper",
            "payment_methods-TOTAL_FORMS": "0",
            "payment_methods-INITIAL_FORMS": "0",
        },
    )
    pages = [
        f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        for model, model_admin in site._registry.items()
        if model_admin.has_view_permission(_request(staff))
    ]
    pages += [
        f"/admin/transactions/transaction/{ach.pk}/change/",
        f"/admin/transactions/transaction/{rtp.pk}/change/",
        f"/admin/accounts/company/{company.pk}/change/",
        f"/admin/customers/customer/{customer.pk}/change/",
        f"/admin/customers/customer/{customer.pk}/history/",
        "/admin/",
    ]
    found = {}
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, (page, response.status_code)
        text = _text(response)
        if words := sorted({match.group(0) for match in JARGON.finditer(text)}):
            found[page] = words
    assert found == {}
    ach_page = _text(client.get(f"/admin/transactions/transaction/{ach.pk}/change/"))
    rtp_page = _text(client.get(f"/admin/transactions/transaction/{rtp.pk}/change/"))
    assert "RTP network id" not in ach_page and "RTP network id: RTP0A1B" in rtp_page
    assert "Trace number" in ach_page and "Trace number" not in rtp_page


def _request(user):
    request = RequestFactory().get("/admin/")
    request.user = user
    return request


def test_view_site_opens_the_api_documentation_not_a_json_404(superuser_client):
    index = superuser_client.get("/admin/").content.decode()
    link = re.search(r'<a href="([^"]+)">View site</a>', index).group(1)
    docs = superuser_client.get(link)
    assert docs.status_code == 200 and docs["Content-Type"].startswith("text/html")
