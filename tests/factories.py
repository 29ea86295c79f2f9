"""factory-boy factories for every model the tests build."""
from __future__ import annotations

import factory

from accounts.models import Company, Membership, Role, User
from accounts.services import IssuedApiKey, api_key_create, role_get_or_create_default


class CompanyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Company

    name = factory.Sequence(lambda n: f"Merchant {n}")


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
    return api_key_create(company=company, **kwargs)
