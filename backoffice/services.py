"""Back-office staff users: an email login with is_staff, in the groups of backoffice.groups, member of the
companies whose rows they may see."""

from __future__ import annotations

import secrets

from django.apps import apps as django_apps
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction

from accounts.models import Company, User
from accounts.services import user_create
from backoffice.groups import STAFF_GROUPS, staff_groups_sync

# The API role a staff user's memberships carry: read-only plus customer edits, never money-moving API calls.
STAFF_MEMBERSHIP_ROLE = "support"


@transaction.atomic
def staff_user_create(
    *, email: str, groups: list[str], companies: list[Company], password: str | None = None
) -> tuple[User, str | None]:
    """Creates (or updates) a staff user in exactly `groups`, member of `companies`. Returns the user and the
    password when one was generated here (None when given, or when the user already existed)."""
    unknown = [name for name in groups if name not in STAFF_GROUPS]
    if unknown:
        raise ValidationError(f"unknown group {unknown[0]!r}; known groups: {', '.join(STAFF_GROUPS)}")
    if not companies:
        raise ValidationError("at least one company: a staff user sees only the companies they are a member of")
    staff_groups_sync(django_apps)  # permissions added since the seeding migration are granted too
    existed = User.objects.filter(email=email.strip().lower()).exists()
    generated = None if (password or existed) else secrets.token_urlsafe(18)
    user = None
    for company in companies:
        user = user_create(
            email=email, password=password or generated, company=company, role_name=STAFF_MEMBERSHIP_ROLE
        )
    staff_access_grant(user=user, groups=groups)
    return user, generated


def staff_access_grant(*, user: User, groups: list[str]) -> User:
    """The user may log into the admin, with exactly the permissions of `groups`."""
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    user.groups.set(Group.objects.filter(name__in=groups))
    return user
