"""Create a user (email login) with a membership of a company: `{"userId", "email"}`."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Company
from accounts.services import user_create
from vault.commands import by_uuid, emit, validation_message


class Command(BaseCommand):
    help = (
        "Create a user who logs in with email and password, member of --company with --role (default admin; "
        "default roles: admin, support, reporting, or any role made in the admin). An existing user with that "
        'email keeps their password and gets (or changes) the membership. Prints {"userId", "email"}.'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--email", required=True)
        parser.add_argument("--password", required=True)
        parser.add_argument("--company", required=True, metavar="UUID")
        parser.add_argument("--role", default="admin")

    def handle(self, *args, email: str, password: str, company: str, role: str, **options):
        target = by_uuid(Company.objects, company, flag="--company")
        try:
            user = user_create(email=email, password=password, company=target, role_name=role)
        except ValidationError as exc:
            raise CommandError(validation_message(exc)) from None
        emit(self, {"userId": user.pk, "email": user.email})
