from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ledger.models import Account
from ledger.postings import entry_post

T0 = datetime(2026, 11, 2, 15, 0, tzinfo=UTC)


def post(company, postings, *, at=T0, type="adjustment"):
    """An entry of `postings` ((account, signed cents), ...) for `company` through the ledger's write path."""
    return entry_post(company_id=company.pk, type=type, postings=postings, at=at)


def settle_into_pending(company, amount, *, at=T0):
    """What a settled debit of `amount` leaves: pending up, the bank account down."""
    return post(company, [(Account.PENDING, amount), (Account.BANK, -amount)], at=at, type="settlement")


@pytest.fixture
def books(company, other_company):
    settle_into_pending(company, 10_000)
    post(company, [(Account.PENDING, -4_000), (Account.AVAILABLE, 4_000)], type="funds_available")
    settle_into_pending(other_company, 777)
