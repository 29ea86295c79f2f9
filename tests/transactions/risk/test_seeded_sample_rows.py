"""F8: the demo's seeded sample rows count on neither side of a return rate, so the demo company starts at no
returns and no debits, and one daily cycle of real charges is measured on its own."""

from __future__ import annotations

import pytest
from django.utils import timezone

from sampledata.seeding import seed_transactions
from transactions.models import TransactionReturn
from transactions.risk import return_rates as rates

pytestmark = pytest.mark.django_db


def test_seeded_returns_do_not_count_in_the_return_rates(company):
    seed_transactions(company=company, count=400, vacuum=False)
    today = rates.today_eastern(timezone.now())
    window = rates.rolling_period(today, days=365)
    start, end = window.bounds()
    assert TransactionReturn.objects.filter(company=company, returned_at__gte=start, returned_at__lt=end).exists()
    sheet = rates.return_rates(company=company, period=window)
    assert sheet.total.debits == 0
    assert all(sheet.total.returns[category] == 0 for category in rates.CATEGORIES)
