"""plain_charge_body answers as ChargeInputSerializer does for the plain bank charges it takes, and leaves every
other body to the serializer: for any body, it gives None, or the same validated values (or the same error) as the
serializer."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID, uuid4

from hypothesis import given, settings
from hypothesis import strategies as st

from transactions.charges.views import ChargeInputSerializer, plain_charge_body
from transactions.rules import MAX_AMOUNT_CENTS

NOW = datetime(2030, 1, 15, 15, 0, tzinfo=UTC)
CUSTOMER, METHOD = uuid4(), uuid4()
PLAIN = {
    "method": "ACH",
    "type": "Debit",
    "amount": 1500,
    "customerUuid": str(CUSTOMER),
    "paymentMethodUuid": str(METHOD),
    "paymentDetails": {"name": "x", "accountType": "Checking", "accountNumber": "1111", "routingNumber": "021000021"},
}
TEXTS = ["", "abc", " abc", "abc ", "a\x00b", "é", "\ud800", "x" * 255, "x" * 256, 5, None, True, ["a"]]
UUIDS = [str(CUSTOMER), CUSTOMER.hex, f"{{{CUSTOMER}}}", f"urn:uuid:{CUSTOMER}", "", "x", 5, None, str(CUSTOMER)[:-1]]
DETAILS = st.fixed_dictionaries(
    {},
    optional={
        "name": st.sampled_from(TEXTS),
        "accountType": st.sampled_from(["Checking", "Savings", "checking", "", None, 1]),
        "accountNumber": st.sampled_from(["1111", "111", "1" * 17, "1" * 18, "12a4", "١٢٣٤", " 1111", 1111, None]),
        "routingNumber": st.sampled_from(["021000021", "021000022", "02100002", " 021000021", 21000021, None]),
        "cardNumber": st.just("4111111111111111"),
        "cvv": st.just("123"),
    },
)
BODIES = st.fixed_dictionaries(
    {},
    optional={
        "method": st.sampled_from(["ACH", "RCC", "RTP", "CRD", "ach", " ACH", "", None, 1, ["ACH"]]),
        "type": st.sampled_from(["Debit", "Credit", "debit", "", None, True]),
        "amount": st.sampled_from([-1, 0, 1, 1500, MAX_AMOUNT_CENTS, MAX_AMOUNT_CENTS + 1, True, 15.0, "1500", None]),
        "customerUuid": st.sampled_from(UUIDS),
        "paymentMethodUuid": st.sampled_from(UUIDS),
        "paymentDetails": st.one_of(st.none(), st.just("x"), st.just([]), DETAILS),
        "isSameDay": st.sampled_from([True, False, None, 0, "true"]),
        "externalUniqueId": st.sampled_from(TEXTS),
        "description": st.sampled_from(TEXTS),
        "effectiveDate": st.sampled_from(["2030-01-20", None]),
        "standardEntryClassCode": st.sampled_from(["WEB", "", None]),
        "unknownField": st.just(1),
    },
)


def _answer(validate) -> tuple:
    try:
        return ("valid", validate())
    except Exception as error:
        return ("error", type(error).__name__, str(error))


def _serializer(body: dict):
    serializer = ChargeInputSerializer(data=body, context={"now": NOW})
    return dict(serializer.validated_data) if serializer.is_valid() else "invalid"


def _agree(body: dict) -> bool:
    """Whether plain_charge_body took the body (else it left it to the serializer); fails if they differ."""
    plain = _answer(lambda: plain_charge_body(body))
    if plain == ("valid", None):
        return False
    assert plain == _answer(lambda: _serializer(body)), body
    return True


def test_a_plain_saved_method_charge_is_taken_as_the_serializer_takes_it():
    assert _agree(PLAIN)
    assert _agree(PLAIN | {"isSameDay": False, "externalUniqueId": "", "description": "rent", "customerUuid": None})
    assert plain_charge_body(PLAIN)["paymentMethodUuid"] == METHOD and isinstance(
        plain_charge_body(PLAIN)["customerUuid"], UUID
    )


@settings(max_examples=600, deadline=None)
@given(BODIES)
def test_any_body_gets_the_serializers_answer_or_goes_to_it(body):
    _agree(body)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(PLAIN)), st.sampled_from([None, "", 1, True, [], {}]), max_size=3))
def test_a_plain_body_with_any_field_changed_gets_the_same_answer(changes):
    _agree(PLAIN | changes)
