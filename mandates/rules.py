"""What a debit asks of its mandate (CONTRACT 14), below the charge that asks: policy `require`, the mandate's
terms and whether it is still active. A charge that names no mandate under policy `off` asks nothing, so it costs
no query."""

from __future__ import annotations

from uuid import UUID

from accounts.models import Company, MerchantSettings
from customers.models import Customer
from mandates.errors import MANDATE_FIELD, MandateNotActive, MandateRequired, OutsideMandateTerms
from mandates.models import Mandate
from mandates.selectors import mandate_get, mandate_list
from payments.models import PaymentMethod
from vault.errors import ApiError

CONSUMER = Customer.HolderType.CONSUMER


def mandate_asked(*, company: Company, mandate_uuid: UUID | None) -> bool:
    """Whether a charge has anything to ask of mandates: it names one, or its company requires them."""
    return (
        mandate_uuid is not None or company.merchant_settings.mandate_policy == MerchantSettings.MandatePolicy.REQUIRE
    )


def debit_mandate(
    *,
    company: Company,
    mandate_uuid: UUID | None,
    is_debit: bool,
    holder: str | None,
    customer: Customer | None,
    saved: PaymentMethod | None,
    sec_code: str,
    amount: int,
    representment: bool = False,
) -> Mandate | None:
    """The mandate a charge goes under, checked: the one it names, or under policy `require` a consumer debit's
    newest active mandate for its customer, method and SEC code (409 `mandate_required` without one). Any other
    charge goes under none. `representment`: the retry of a debit, which names its first presentment's mandate."""
    if mandate_uuid is not None:
        if not is_debit:
            raise ApiError("a mandate authorizes debits only", field=MANDATE_FIELD)
        mandate = mandate_get(company=company, mandate_uuid=mandate_uuid, field=MANDATE_FIELD)
    elif is_debit and holder in (CONSUMER, None) and _required(company):
        mandate = _standing(company=company, customer=customer, saved=saved, sec_code=sec_code)
    else:
        return None
    mandate_terms_fit(
        mandate, customer=customer, saved=saved, sec_code=sec_code, amount=amount, representment=representment
    )
    return mandate


def _required(company: Company) -> bool:
    return company.merchant_settings.mandate_policy == MerchantSettings.MandatePolicy.REQUIRE


def _standing(*, company: Company, customer: Customer | None, saved: PaymentMethod | None, sec_code: str) -> Mandate:
    found = None
    if customer is not None and saved is not None:
        found = (
            mandate_list(company=company, customer=customer)
            .filter(payment_method=saved, sec_code=sec_code, status=Mandate.Status.ACTIVE)
            .exclude(type=Mandate.Type.SINGLE, used_at__isnull=False)
            .first()
        )
    if found is None:
        raise MandateRequired(
            f"the company requires a mandate for consumer debits: none is active for this customer, payment method "
            f"and {sec_code or 'SEC code'}"
        )
    return found


def mandate_terms_fit(
    mandate: Mandate,
    *,
    customer: Customer | None,
    saved: PaymentMethod | None,
    sec_code: str,
    amount: int,
    representment: bool = False,
) -> None:
    """409 `mandate_not_active` for a revoked or used-up mandate, 409 `outside_mandate_terms` for a debit its
    terms do not cover (another customer, method or SEC code; above maxAmount). A re-presentment is the same
    debit again: the single mandate its first presentment used still covers it, unless it was revoked."""
    if mandate.status != Mandate.Status.ACTIVE:
        raise MandateNotActive(f"the mandate is {mandate.status}: {mandate.revoked_reason}")
    if mandate.type == Mandate.Type.SINGLE and mandate.used_at is not None and not representment:
        raise MandateNotActive("the single mandate has already been used for a debit")
    if customer is None or saved is None or (mandate.customer_id, mandate.payment_method_id) != (customer.pk, saved.pk):
        raise OutsideMandateTerms("the mandate is for another customer or payment method")
    if mandate.sec_code != sec_code:
        raise OutsideMandateTerms(f"the mandate authorizes {mandate.sec_code} debits, not {sec_code}")
    if mandate.max_amount is not None and amount > mandate.max_amount:
        raise OutsideMandateTerms(
            f"amount {amount} is above the mandate's maxAmount {mandate.max_amount}", field="amount"
        )


# How often each frequency debits, least often last (CONTRACT 14, 2026-12-07): a schedule may debit as often as its
# mandate's frequency or less often. An `irregular` mandate, or one without a frequency, fixes no interval (its
# maxAmount still caps each debit).
FREQUENCY_ORDER = (Mandate.Frequency.WEEKLY, Mandate.Frequency.BIWEEKLY, Mandate.Frequency.MONTHLY)


def mandate_interval_fit(mandate: Mandate, interval: str) -> None:
    """409 `outside_mandate_terms` on `interval` for a schedule more frequent than the mandate allows."""
    if mandate.frequency in FREQUENCY_ORDER and FREQUENCY_ORDER.index(interval) < FREQUENCY_ORDER.index(
        mandate.frequency
    ):
        raise OutsideMandateTerms(
            f"a {interval} schedule debits more often than the mandate's frequency ({mandate.frequency})",
            field="interval",
        )
