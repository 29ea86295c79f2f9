"""Create a back-office user: `create_staff_user --email E --group Support --company UUID`."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Company
from backoffice.groups import STAFF_GROUPS
from backoffice.services import staff_user_create
from vault.commands import by_uuid, emit, validation_message


class Command(BaseCommand):
    help = (
        "Create (or update) a staff user who logs into /admin/ with email and password, in the back-office "
        f"group(s) --group ({', '.join(STAFF_GROUPS)}), seeing the rows of each --company. Without --password one "
        'is generated and printed once. Prints {"userId", "email", "groups", "companies"[, "password"]}.'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--email", required=True)
        parser.add_argument("--group", action="append", required=True, choices=list(STAFF_GROUPS), dest="groups")
        parser.add_argument("--company", action="append", required=True, metavar="UUID", dest="companies")
        parser.add_argument("--password", help="default: a generated one, printed once")

    def handle(self, *args, email: str, groups: list[str], companies: list[str], password: str | None, **options):
        targets = [by_uuid(Company.objects, raw, flag="--company") for raw in companies]
        try:
            user, generated = staff_user_create(email=email, groups=groups, companies=targets, password=password)
        except ValidationError as exc:
            raise CommandError(validation_message(exc)) from None
        payload = {
            "userId": user.pk,
            "email": user.email,
            "groups": sorted(groups),
            "companies": [str(company.uuid) for company in targets],
        }
        if generated:
            payload["password"] = generated
        emit(self, payload)
