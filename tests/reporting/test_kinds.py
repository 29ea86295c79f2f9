"""Each field kind keeps two forms of a value's text: the fast one PostgreSQL writes itself (`text_sql`, on JSON pages,
and `cursor_sql`, the next cursor's key) and the one Python writes everywhere else (`python_text`, and the cursor's
`cursor_value` reading it back). Property tests hold each pair to the same text, as plain_charge_body is held to
the charge serializer."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

import pytest
from django.db.models import DateField, DateTimeField, UUIDField, Value
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import Company
from reporting.kinds import KINDS, FieldType

MOMENTS = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 12, 31), timezones=st.just(UTC))
VALUES = {
    FieldType.TIMESTAMP: (MOMENTS, DateTimeField()),
    FieldType.DATE: (st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31)), DateField()),
    FieldType.UUID: (st.uuids(), UUIDField()),
}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _in_sql(company: Company, expression_of, value, output_field):
    """PostgreSQL's answer for `expression_of(path)` with `value` standing at that path."""
    rows = Company.objects.filter(pk=company.pk).annotate(v=Value(value, output_field=output_field))
    return rows.annotate(out=expression_of("v")).values_list("out", flat=True).get()


def test_every_kind_postgresql_writes_has_its_python_twin():
    renderable = {field_type for field_type, kind in KINDS.items() if kind.database_renderable}
    assert renderable == set(VALUES)


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("field_type", list(VALUES))
def test_the_text_postgresql_writes_is_the_text_python_writes(company, field_type):
    kind = KINDS[field_type]
    strategy, output_field = VALUES[field_type]

    @SETTINGS
    @given(strategy)
    def same_text(value):
        assert _in_sql(company, kind.text_sql, value, output_field) == kind.python_text(value)

    same_text()


@pytest.mark.postgres
@pytest.mark.django_db
@SETTINGS
@given(MOMENTS)
def test_a_timestamp_cursor_key_read_as_text_comes_back_as_the_same_moment(company, moment):
    kind = KINDS[FieldType.TIMESTAMP]
    # A column (the company's created_at): the cursor's SQL names its value four times, a parameter only once.
    Company.objects.filter(pk=company.pk).update(created_at=moment)
    text = (
        Company.objects.filter(pk=company.pk)
        .annotate(out=kind.cursor_sql("created_at"))
        .values_list("out", flat=True)
        .get()
    )
    assert text == moment.isoformat()
    assert kind.cursor_value(text) == moment


def test_uuid_and_date_cursor_keys_come_back_as_they_went():
    assert KINDS[FieldType.UUID].cursor_value(str(uuid.UUID(int=7))) == uuid.UUID(int=7)
    assert KINDS[FieldType.DATE].cursor_value("2026-03-06") == date(2026, 3, 6)
