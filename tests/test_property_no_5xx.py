"""CONTRACT 4, property-based (hypothesis): no query of the reporting grammar and no body sent to a write route
answers a 5xx, whatever the keys, conditions and values. Bounded to a few hundred requests in all."""

from __future__ import annotations

import json
import uuid

import pytest
from django.urls import get_resolver, reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.actions import ROUTE_ACTIONS
from reporting.registry import ALL, BY_FILTER, BY_KEY
from tests import factories

pytestmark = pytest.mark.django_db

BOUNDED = settings(
    max_examples=50,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Any character a URL or a JSON string can carry, NUL and non-ASCII digits included (surrogates cannot be encoded).
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=24)
DIGITS = st.text(st.characters(categories=("Nd", "No")), min_size=1, max_size=12)
DATES = st.dates().map(lambda d: f"{d.year:04d}-{d.month:02d}-{d.day:02d}")
TIMESTAMPS = st.datetimes().map(lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ").rjust(20, "0"))
INTEGERS = st.integers(min_value=-(2**70), max_value=2**70).map(str)
# Values that broke something once: NUL (PostgreSQL text), the ends of the calendar, huge and non-ASCII numbers.
EDGES = st.sampled_from(
    ["\x00", "a\x00b", "9999-12-31", "0001-01-01", "9999-12-31T23:59:59Z", "1e999", "²", "١", "-0", "%", "_", "true"]
)
SCALAR_TEXT = st.one_of(EDGES, TEXT, DIGITS, DATES, TIMESTAMPS, INTEGERS, st.sampled_from(["false", "", "null"]))
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(TEXT, children, max_size=3),
    max_leaves=8,
)
FILTER_VALUES = st.one_of(
    SCALAR_TEXT,
    st.lists(SCALAR_TEXT, min_size=1, max_size=4).map(",".join),
    JSON_VALUES.map(lambda v: json.dumps(v, allow_nan=True)),
)
FILTER_NAMES = st.one_of(
    st.sampled_from(sorted(BY_FILTER)),
    st.sampled_from(sorted(BY_FILTER)).map(str.upper),
    TEXT,
)
CONDITIONS = st.one_of(st.just(""), st.sampled_from(ALL).map(":{}".format), TEXT.map(":{}".format))
RESERVED = st.fixed_dictionaries(
    {
        "page": st.one_of(st.just("0"), SCALAR_TEXT),
        "pageSize": st.one_of(st.just("5"), SCALAR_TEXT),
    },
    optional={
        "sort": st.one_of(st.sampled_from(["id", *sorted(BY_FILTER)]), TEXT),
        "sortDir": st.one_of(st.sampled_from(["ASC", "DESC", "asc"]), TEXT),
        "columns": st.lists(st.one_of(st.sampled_from(sorted(BY_KEY)), TEXT), max_size=4).map(",".join),
        "format": st.one_of(st.sampled_from(["json", "csv"]), TEXT),
    },
)
QUERIES = st.tuples(RESERVED, st.lists(st.tuples(FILTER_NAMES, CONDITIONS, FILTER_VALUES), max_size=3))


def _read(response) -> None:
    """A streamed CSV fails, if at all, while it is read."""
    if getattr(response, "streaming", False):
        b"".join(response.streaming_content)


@pytest.fixture
def reporting_rows(company):
    factories.TransactionFactory(company=company)
    factories.TransactionFactory(company=company, method="RCC", status="Settled", amount=99)


def test_no_reporting_query_answers_a_5xx(api_client, reporting_rows):
    @BOUNDED
    @given(QUERIES)
    def check(query):
        reserved, filters = query
        params = [*reserved.items(), *((f"{name}{condition}", value) for name, condition, value in filters)]
        response = api_client.get("/reporting/transactions", params)
        _read(response)
        assert response.status_code < 500, (params, response.content[:300])

    check()


BODY_FIELDS = sorted(
    {
        "accountHolderType", "accountNumber", "accountType", "amount", "cardNumber", "companyName", "customerId",
        "customerUuid", "cvv", "description", "effectiveDate", "email", "entryDescription", "expirationDate",
        "externalUniqueId", "firstName", "isDefault", "lastName", "method", "name", "nickname", "password",
        "paymentDetails", "paymentMethodUuid", "phone", "purpose", "refreshToken", "routingNumber",
        "standardEntryClassCode", "status", "type",
    }
)  # fmt: skip
FIELD_VALUES = st.one_of(
    JSON_VALUES, SCALAR_TEXT, st.integers(), st.sampled_from(["ACH", "RCC", "RTP", "CRD", "Debit"])
)
BODIES = st.one_of(
    st.dictionaries(st.one_of(st.sampled_from(BODY_FIELDS), TEXT), FIELD_VALUES, max_size=6).map(json.dumps),
    st.dictionaries(
        st.sampled_from(BODY_FIELDS),
        st.one_of(FIELD_VALUES, st.dictionaries(st.sampled_from(BODY_FIELDS), FIELD_VALUES, max_size=5)),
        max_size=8,
    ).map(json.dumps),
    JSON_VALUES.map(lambda v: json.dumps(v, allow_nan=True)),
    st.binary(max_size=64).map(lambda b: b.decode("latin-1")),
)


WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")


def _path_kwargs(url_name: str) -> list[str]:
    return [
        param
        for possibility in get_resolver().reverse_dict.getlist(url_name)
        for _, params in possibility[0]
        for param in params
    ]


@pytest.fixture
def write_routes(company):
    """Every write route of ROUTE_ACTIONS (so a route added later is covered too), on real objects of the company
    where the path names one, plus the two public auth routes."""
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer, is_default=True)
    objects = {
        "customer_uuid": customer.uuid,
        "payment_method_uuid": method.uuid,
        "transaction-void": factories.TransactionFactory(company=company).uuid,
        "transaction-reverse": factories.TransactionFactory(company=company, status="Settled").uuid,
    }
    routes = [("POST", "/auth/login"), ("POST", "/auth/refresh")]
    for url_name, http_method in sorted(ROUTE_ACTIONS):
        if http_method not in WRITE_METHODS:
            continue
        kwargs = {
            param: objects.get(param) or objects.get(url_name) or uuid.uuid4() for param in _path_kwargs(url_name)
        }
        routes.append((http_method, reverse(url_name, kwargs=kwargs or None)))
    return routes


def test_no_body_sent_to_a_write_route_answers_a_5xx(api_client, write_routes):
    @BOUNDED
    @given(st.sampled_from(write_routes), BODIES)
    def check(route, body):
        method, path = route
        response = api_client.generic(
            method, path, body.encode("utf-8", "surrogatepass"), content_type="application/json"
        )
        assert response.status_code < 500, (method, path, body[:200], response.content[:300])

    check()
