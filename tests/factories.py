"""factory-boy factories for every model the tests build."""

from __future__ import annotations

import factory
from django.utils import timezone

from accounts.actions import ALL_ACTIONS, LIVE_API_KEY_GROUP
from accounts.models import (
    MERCHANT_SETTINGS_FIELDS,
    ActionGroup,
    Company,
    Membership,
    MerchantSettings,
    Role,
    User,
    merchant_settings_defaults,
)
from accounts.services import IssuedApiKey, api_key_create, role_get_or_create_default
from vault import crypto


class CompanyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Company

    name = factory.Sequence(lambda n: f"Merchant {n}")

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        """Settings given as keywords (CompanyFactory(hold_over=5)) go to the company's MerchantSettings row,
        made with it as every company's is."""
        settings = {name: kwargs.pop(name) for name in MERCHANT_SETTINGS_FIELDS if name in kwargs}
        company = super()._create(model_class, *args, **kwargs)
        MerchantSettings.objects.create(
            company=company, **{**merchant_settings_defaults(sandbox=company.is_sandbox), **settings}
        )
        return company


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"user{n}@example.com")
    password = factory.PostGenerationMethodCall("set_password", "correct horse battery")

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


def membership(user: User, company: Company, role_name: str = "admin") -> Membership:
    role: Role = role_get_or_create_default(role_name)
    return Membership.objects.create(user=user, company=company, role=role)


def issue_api_key(company: Company, **kwargs) -> IssuedApiKey:
    # API keys fail closed without the live action group, and a transaction=True test's flush removes the row the
    # migrations made: a key is issued into a database that has it, as a migrated one does.
    ActionGroup.objects.get_or_create(name=LIVE_API_KEY_GROUP, defaults={"actions": list(ALL_ACTIONS)})
    return api_key_create(company=company, **kwargs)


class CustomerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "customers.Customer"

    company = factory.SubFactory(CompanyFactory)
    first_name = "Ada"
    last_name = factory.Sequence(lambda n: f"Payer{n}")
    email = factory.Sequence(lambda n: f"payer{n}@example.com")
    account_holder_type = "consumer"


def _account_number(n: int) -> str:
    return f"{100000000 + n}"


class PaymentMethodFactory(factory.django.DjangoModelFactory):
    """A saved bank account; hashes and last four derive from the numbers as the service computes them."""

    class Meta:
        model = "payments.PaymentMethod"

    customer = factory.SubFactory(CustomerFactory)
    company = factory.SelfAttribute("customer.company")
    account_type = "Checking"
    account_number = factory.Sequence(_account_number)
    routing_number = "021000021"
    last_four = factory.LazyAttribute(lambda o: o.account_number[-4:])
    account_hash = factory.LazyAttribute(lambda o: crypto.account_pair_hash(o.routing_number, o.account_number))
    account_number_hash = factory.LazyAttribute(lambda o: crypto.account_number_hash(o.account_number))
    unpadded_account_hash = factory.LazyAttribute(lambda o: crypto.unpadded_account_hash(o.account_number or ""))
    is_default = False


class TransactionFactory(factory.django.DjangoModelFactory):
    """A bank transaction as a charge would store it."""

    class Meta:
        model = "transactions.Transaction"

    company = factory.SubFactory(CompanyFactory)
    method = "ACH"
    type = "Debit"
    amount = 1500
    status = "Pending"
    standard_entry_class_code = "WEB"
    effective_date = factory.LazyFunction(lambda: timezone.now().date())
    name = "Ada Lovelace"
    account_type = "Checking"
    account_number = "123456789"
    account_number_hash = factory.LazyAttribute(lambda o: crypto.account_number_hash(o.account_number))
    unpadded_account_hash = factory.LazyAttribute(lambda o: crypto.unpadded_account_hash(o.account_number or ""))
    account_last_four = factory.LazyAttribute(lambda o: o.account_number[-4:])
    routing_number = "021000021"


def merchant_settings_form(company: Company, **changes) -> dict:
    """The company page's settings inline (backoffice.accounts_admin.MerchantSettingsInline) as a post carries it: the
    stored values (money in dollars), `changes` over them (unprefixed names; None leaves a field out, a checkbox
    off)."""
    stored = MerchantSettings.objects.get(pk=company.pk)
    values = {}
    for name in MERCHANT_SETTINGS_FIELDS:
        value = getattr(stored, name)
        if name in ("hold_over", "decline_over", "daily_volume_limit") and value is not None:
            value = f"{value / 100:.2f}"
        values[name] = "on" if value is True else None if value is False else "" if value is None else str(value)
    values.update(changes)
    prefix = "merchant_settings"
    return {
        f"{prefix}-TOTAL_FORMS": "1",
        f"{prefix}-INITIAL_FORMS": "1",
        f"{prefix}-0-company": str(company.pk),
        **{f"{prefix}-0-{name}": value for name, value in values.items() if value is not None},
    }
