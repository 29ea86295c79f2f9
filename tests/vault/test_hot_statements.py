"""vault.db's prebuilt statements behave as the ORM calls they replace on the charge path: the same row written,
the same rows found and refused, values encrypted and decrypted alike (both databases)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.models.signals import pre_save
from django.utils import timezone

from events.models import Event
from payments.models import PaymentMethod
from tests import factories
from transactions.models import ChangeNotice, IngestionFile, ParkedReturnItem, Transaction, TransactionReturn
from transactions.selectors import duplicate_of, saved_method_for_charge
from vault import crypto
from vault.db import RowInsert, rows_insert
from vault.errors import NotFound

pytestmark = pytest.mark.django_db

COMPARED = [f.attname for f in Transaction._meta.concrete_fields if f.attname not in ("id", "uuid", "sequence_uuid")]


NOW = timezone.now()


def _unsaved(company, **overrides) -> Transaction:
    now = NOW
    fields = {
        "company": company,
        "method": "ACH",
        "type": "Debit",
        "amount": 4321,
        "status": "Pending",
        "standard_entry_class_code": "WEB",
        "effective_date": now.date(),
        "created_at": now,
        "name": "Ada Lovelace",
        "account_type": "Checking",
        "account_number": "123456789",
        "account_number_hash": crypto.account_number_hash("123456789"),
        "account_last_four": "6789",
        "routing_number": "021000021",
        "description": "",
        "entry_description": None,
    }
    return Transaction(**fields | overrides)


def _stored(pk: int) -> dict:
    return Transaction.objects.filter(pk=pk).values(*COMPARED).get()


def test_row_insert_writes_the_row_model_save_writes(company):
    saved, inserted = _unsaved(company), _unsaved(company)
    saved.save(force_insert=True)
    RowInsert(Transaction).insert(inserted)

    assert inserted.pk is not None and inserted.pk != saved.pk
    assert inserted._state.adding is False and inserted._state.db == "default"
    assert _stored(inserted.pk) == _stored(saved.pk)
    assert Transaction.objects.get(pk=inserted.pk).uuid == inserted.uuid


def test_row_insert_stores_the_account_number_encrypted(company):
    txn = _unsaved(company)
    RowInsert(Transaction).insert(txn)

    with connection.cursor() as cursor:
        cursor.execute("SELECT account_number FROM transactions_transaction WHERE id = %s", [txn.pk])
        (raw,) = cursor.fetchone()
    assert "123456789" not in raw
    assert Transaction.objects.get(pk=txn.pk).account_number == "123456789"


def test_row_insert_returns_what_the_database_computes(company):
    """is_duplicate is an Exists the INSERT evaluates: false for the first charge, true for the same again."""
    insert = RowInsert(Transaction)
    first, again = _unsaved(company), _unsaved(company)
    for txn in (first, again):
        txn.is_duplicate = duplicate_of(
            company=company,
            amount=txn.amount,
            type=txn.type,
            now=txn.created_at + timedelta(seconds=1),
            account_number_hash=txn.account_number_hash,
        )
        insert.insert(txn)

    assert (first.is_duplicate, again.is_duplicate) == (False, True)
    assert list(
        Transaction.objects.filter(pk__in=[first.pk, again.pk]).order_by("pk").values_list("is_duplicate", flat=True)
    ) == [False, True]


def test_row_insert_saves_the_ordinary_way_when_something_listens(company):
    heard = []

    def listener(sender, instance, **kwargs):
        heard.append(instance.amount)

    pre_save.connect(listener, sender=Transaction)
    try:
        RowInsert(Transaction).insert(_unsaved(company, amount=777))
    finally:
        pre_save.disconnect(listener, sender=Transaction)
    assert heard == [777]
    assert Transaction.objects.filter(company=company, amount=777).exists()


@pytest.fixture
def saved_method(company) -> PaymentMethod:
    return factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company, first_name="Grace"))


def test_saved_method_lookup_reads_method_and_customer_in_one_query(company, saved_method, django_assert_num_queries):
    with django_assert_num_queries(1):
        customer, method, _ = saved_method_for_charge(
            company=company, customer_uuid=saved_method.customer.uuid, payment_method_uuid=saved_method.uuid
        )
        assert (method.pk, method.account_number, method.routing_number) == (
            saved_method.pk,
            saved_method.account_number,
            "021000021",
        )
        assert (customer.pk, customer.first_name, customer.status) == (saved_method.customer.pk, "Grace", "active")
        assert method.customer is customer


def test_saved_method_lookup_reads_a_deferred_field_on_demand(company, saved_method):
    _, method, _ = saved_method_for_charge(
        company=company, customer_uuid=saved_method.customer.uuid, payment_method_uuid=saved_method.uuid
    )
    assert method.last_four == saved_method.account_number[-4:]


def test_saved_method_lookup_finds_no_deleted_method(company, saved_method):
    PaymentMethod.objects.filter(pk=saved_method.pk).update(deleted_at=timezone.now())
    customer, method, _ = saved_method_for_charge(
        company=company, customer_uuid=saved_method.customer.uuid, payment_method_uuid=saved_method.uuid
    )
    assert (customer.pk, method) == (saved_method.customer.pk, None)


def test_saved_method_lookup_finds_no_other_customers_method(company, saved_method):
    someone_else = factories.CustomerFactory(company=company)
    customer, method, _ = saved_method_for_charge(
        company=company, customer_uuid=someone_else.uuid, payment_method_uuid=saved_method.uuid
    )
    assert (customer.pk, method) == (someone_else.pk, None)


def test_saved_method_lookup_is_404_for_another_companys_method(company, other_company, saved_method):
    with pytest.raises(NotFound):
        saved_method_for_charge(
            company=other_company, customer_uuid=saved_method.customer.uuid, payment_method_uuid=saved_method.uuid
        )


def _charge(api_client, saved: PaymentMethod, **overrides) -> dict:
    body = {
        "method": "ACH",
        "type": "Debit",
        "amount": 1500,
        "customerUuid": str(saved.customer.uuid),
        "paymentMethodUuid": str(saved.uuid),
        "paymentDetails": {
            "name": "x",
            "accountType": "Checking",
            "accountNumber": "1111",
            "routingNumber": "021000021",
        },
    } | overrides
    response = api_client.put("/transactions", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["data"]


BORN = [("ACH", ["transaction.created"]), ("RTP", ["transaction.created", "transaction.settled"])]


@pytest.mark.parametrize(("method", "announced"), BORN)
def test_a_charge_row_its_trail_and_its_events_are_written_alike_on_both_databases(
    api_client, saved_method, method, announced
):
    """On PostgreSQL one statement writes the row, its trail (the trigger) and its events, which take numericId and
    isDuplicate from the INSERT; elsewhere the INSERT then the outbox's statements. The same rows either way."""
    first = _charge(api_client, saved_method, method=method)
    again = _charge(api_client, saved_method, method=method)
    for record, duplicate in ((first, False), (again, True)):
        txn = Transaction.objects.get(uuid=record["uuid"])
        assert (record["numericId"], record["isDuplicate"]) == (txn.pk, duplicate)
        assert list(txn.events.values_list("event", "to_status")) == [("created", record["status"])]
        events = Event.objects.filter(object_uuid=txn.uuid).order_by("sequence")
        assert [(event.type, event.sequence) for event in events] == [(t, n) for n, t in enumerate(announced, 1)]
        assert all(event.data == record for event in events)


def test_a_transition_after_the_one_statement_charge_numbers_its_event_next(api_client, saved_method):
    record = _charge(api_client, saved_method)
    assert api_client.post(f"/transactions/{record['uuid']}/void").status_code == 200
    events = Event.objects.filter(object_uuid=record["uuid"]).order_by("sequence")
    assert [(event.type, event.sequence) for event in events] == [("transaction.created", 1), ("transaction.voided", 2)]


TRICKY_TEXT = ['a "quoted", {braced} \\ line', "NULL", "", "é ✓", None]


def _stored_rows(model, pks: list[int], exclude: tuple[str, ...] = ("id", "uuid")) -> list[dict]:
    names = [f.attname for f in model._meta.concrete_fields if f.attname not in exclude]
    rows = {row["id"]: row for row in model.objects.filter(pk__in=pks).values("id", *names)}
    return [{name: rows[pk][name] for name in names} for pk in pks]


def test_rows_insert_writes_the_rows_bulk_create_writes(company):
    ingestion = IngestionFile.objects.create(filename="r.ach", sha256="a" * 64, file_format="nacha", received_at=NOW)
    txns = [factories.TransactionFactory(company=company, amount=100 + n) for n in range(len(TRICKY_TEXT))]

    def parked() -> list[ParkedReturnItem]:
        return [
            ParkedReturnItem(
                ingestion_file=ingestion,
                trace_number=f"{n:015d}",
                code="R99",
                reason=text or "",
                transaction_uuid=txns[n].uuid if text is not None else None,
                created_at=NOW,
            )
            for n, text in enumerate(TRICKY_TEXT)
        ]

    def returned(txns) -> list[TransactionReturn]:
        return [
            TransactionReturn(
                company=company,
                transaction=txn,
                return_code="R01",
                return_reason=text or "",
                returned_at=NOW,
                ingestion_file=ingestion if n % 2 else None,
                due_by=NOW.date() if n % 2 else None,
                is_untimely=bool(n % 2),
            )
            for n, (txn, text) in enumerate(zip(txns, TRICKY_TEXT, strict=True))
        ]

    by_django, by_rows = parked(), parked()
    ParkedReturnItem.objects.bulk_create(by_django)
    rows_insert(ParkedReturnItem, by_rows)
    assert all(item.pk is not None and not item._state.adding for item in by_rows)
    assert _stored_rows(ParkedReturnItem, [item.pk for item in by_rows]) == _stored_rows(
        ParkedReturnItem, [item.pk for item in by_django]
    )

    others = [factories.TransactionFactory(company=company, amount=100 + n) for n in range(len(TRICKY_TEXT))]
    by_django, by_rows = returned(txns), returned(others)
    TransactionReturn.objects.bulk_create(by_django)
    rows_insert(TransactionReturn, by_rows)
    assert [entry.transaction_id for entry in TransactionReturn.objects.filter(pk__in=[e.pk for e in by_rows])] == [
        txn.pk for txn in others
    ]
    exclude = ("id", "uuid", "transaction_id")
    assert _stored_rows(TransactionReturn, [e.pk for e in by_rows], exclude) == _stored_rows(
        TransactionReturn, [e.pk for e in by_django], exclude
    )


def test_rows_insert_writes_the_json_documents_bulk_create_writes(company):
    def notices() -> list[ChangeNotice]:
        return [
            ChangeNotice(
                company=company,
                transaction=factories.TransactionFactory(company=company),
                change_code="C01",
                change_reason="Incorrect account number",
                changed_at=NOW,
                noc_received_at=NOW,
                old_value={"accountNumber": "****6789", "name": text, "nested": [text, {"n": n}]},
                new_value={} if text is None else {"name": text},
                corrected_account_number="987654321" if n % 2 else None,
            )
            for n, text in enumerate(TRICKY_TEXT)
        ]

    by_django, by_rows = notices(), notices()
    ChangeNotice.objects.bulk_create(by_django)
    rows_insert(ChangeNotice, by_rows)
    assert all(notice.pk is not None and not notice._state.adding for notice in by_rows)
    exclude = ("id", "uuid", "transaction_id")
    stored = _stored_rows(ChangeNotice, [notice.pk for notice in by_rows], exclude)
    assert stored == _stored_rows(ChangeNotice, [notice.pk for notice in by_django], exclude)
    assert stored[0]["old_value"]["name"] == TRICKY_TEXT[0] and stored[1]["corrected_account_number"] == "987654321"
    if connection.vendor == "postgresql":  # documents, not strings holding their text
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT DISTINCT jsonb_typeof(old_value) FROM transactions_changenotice WHERE id = ANY(%s)",
                [[notice.pk for notice in by_rows]],
            )
            assert cursor.fetchall() == [("object",)]
