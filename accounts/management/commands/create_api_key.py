"""Issue an API key for a company: the raw key is printed this once and never stored."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.actions import ALL_ACTIONS, ROLLOUT_GATED_ACTIONS
from accounts.models import Company
from accounts.selectors import live_api_key_actions
from accounts.services import api_key_create
from vault.commands import by_uuid, emit, validation_message


def parse_actions(raw: str) -> list[str]:
    names = [name.strip() for name in raw.split(",") if name.strip()]
    if not names:
        raise CommandError("--actions needs at least one action name")
    unknown = sorted(set(names) - set(ALL_ACTIONS))
    if unknown:
        raise CommandError(f"unknown actions: {', '.join(unknown)}; known: {', '.join(ALL_ACTIONS)}")
    return names


class Command(BaseCommand):
    help = (
        'Issue an API key for a company and print {"apiKey", "authorization", "prefix"}; the raw key is shown '
        "this once only. --actions A,B scopes the key to those actions: it may use an action only when the live "
        "API-key action group (edited in the admin) grants it too; without --actions, every action of the group. The "
        "key's set is shown and editable on its admin page. The command refuses (no key issued) when a name is "
        "unknown, when the live group lacks one of them, or when one is rollout-gated (CreateCustomer, "
        "ManagePaymentMethods) for a company in staged rollout without --rollout-allowed."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--company", required=True, metavar="UUID")
        parser.add_argument("--name", default="", help="label shown in the admin (at most 100 characters)")
        parser.add_argument(
            "--actions", metavar="A,B", help="the only actions the key may use (default: all of the live group)"
        )
        parser.add_argument(
            "--rollout-allowed", action="store_true", help="rollout registry flag: gated actions during staged rollout"
        )

    def handle(self, *args, company: str, name: str, actions: str | None, rollout_allowed: bool, **options):
        target = by_uuid(Company.objects, company, flag="--company")
        wanted: list[str] | None = None
        if actions is not None:
            wanted = parse_actions(actions)
            missing = [action for action in wanted if action not in (live_api_key_actions() or ())]
            if missing:
                raise CommandError(
                    f"the live API-key action group does not grant {', '.join(missing)}; edit it in the admin first"
                )
            gated = [action for action in wanted if action in ROLLOUT_GATED_ACTIONS]
            if gated and target.staged_rollout and not rollout_allowed:
                raise CommandError(
                    f"{target.uuid} is in staged rollout: --rollout-allowed is needed for {', '.join(gated)}"
                )
        try:
            issued = api_key_create(company=target, name=name.strip(), rollout_allowed=rollout_allowed, actions=wanted)
        except ValidationError as exc:
            raise CommandError(validation_message(exc)) from None
        emit(self, {"apiKey": issued.raw_key, "authorization": issued.authorization, "prefix": issued.api_key.prefix})
