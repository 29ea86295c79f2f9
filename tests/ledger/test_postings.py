"""The write path and the database's promises: an entry sums to zero, and no posting is ever changed or deleted."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import Value

from ledger.models import Account, JournalEntry, Posting
from ledger.postings import Leg, Template, UnbalancedEntry, template_post
from tests.ledger.conftest import T0, post

# The postings are dated at fixed instants and read as of others: the clock is pinned so "now" falls after them.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]


def test_an_entry_is_its_postings_summing_to_zero(company):
    entry = post(company, [(Account.INCOMING, 500), (Account.CLEARING, -500)], type="charge")
    assert sorted(entry.postings.values_list("account", "amount")) == [("clearing", -500), ("incoming", 500)]
    assert entry.amount == 500


def test_the_write_path_refuses_postings_that_do_not_sum_to_zero(company):
    with pytest.raises(UnbalancedEntry):
        post(company, [(Account.INCOMING, 500), (Account.CLEARING, -499)])
    with pytest.raises(UnbalancedEntry):
        post(company, [(Account.INCOMING, 500), ("nowhere", -500)])
    assert not JournalEntry.objects.exists()


def test_a_template_posts_one_entry_per_row_and_skips_rows_of_no_amount(company, other_company):
    template = Template("settlement", (Leg(Account.INCOMING, "holder"), Leg(Account.BANK, Account.CLEARING)))
    columns = ("company_id", "uuid", "amount", "effective_date", "holder")
    nothing = JournalEntry.objects.none().annotate(holder=Value("pending")).values_list(*columns)
    assert template_post(template, nothing, at=T0) == 0
    a = post(company, [(Account.INCOMING, 300), (Account.CLEARING, -300)], type="charge")
    b = post(other_company, [(Account.INCOMING, 200), (Account.CLEARING, -200)], type="charge")
    # Any queryset of the five source columns will do: here the two entries stand for two settled debits.
    source = JournalEntry.objects.filter(pk__in=[a.pk, b.pk]).annotate(holder=Value("pending")).values_list(*columns)
    assert template_post(template, source, at=T0) == 2
    made = JournalEntry.objects.filter(type="settlement")
    assert sorted(made.values_list("transaction_uuid", flat=True)) == sorted([a.uuid, b.uuid])
    legs = sorted(Posting.objects.filter(entry__in=made, company=company).values_list("account", "amount"))
    assert legs == [("bank", -300), ("clearing", 300), ("incoming", -300), ("pending", 300)]


def test_the_database_refuses_to_change_a_posting(company):
    entry = post(company, [(Account.INCOMING, 500), (Account.CLEARING, -500)])
    with pytest.raises(IntegrityError, match="ledger_append_only"), transaction.atomic():
        Posting.objects.filter(entry=entry).update(amount=1)
    with pytest.raises(IntegrityError, match="ledger_append_only"), transaction.atomic():
        JournalEntry.objects.filter(pk=entry.pk).update(amount=1)
    assert sorted(Posting.objects.values_list("amount", flat=True)) == [-500, 500]


@pytest.mark.postgres
def test_postgres_refuses_to_delete_a_posting_or_an_entry(company):
    entry = post(company, [(Account.INCOMING, 500), (Account.CLEARING, -500)])
    with pytest.raises(IntegrityError, match="never changed or deleted"), transaction.atomic():
        Posting.objects.filter(entry=entry).delete()
    with pytest.raises(IntegrityError, match="never changed or deleted"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM ledger_journalentry WHERE id = %s", [entry.pk])
    assert Posting.objects.count() == 2


@pytest.mark.postgres
def test_postgres_refuses_an_entry_that_does_not_sum_to_zero_when_it_commits(company):
    entry = post(company, [(Account.INCOMING, 500), (Account.CLEARING, -500)])
    with pytest.raises(IntegrityError, match="sum to 1, not 0"), transaction.atomic():
        Posting.objects.create(entry=entry, company=company, account=Account.FEES, amount=1, created_at=T0)
        with connection.cursor() as cursor:  # what COMMIT does: run the deferred check now
            cursor.execute("SET CONSTRAINTS ledger_entry_balanced IMMEDIATE")
    assert Posting.objects.count() == 2
