"""Create a merchant company: `{"companyUuid": ...}`."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from accounts.models import MerchantSettings
from accounts.services import company_create
from vault.commands import emit, non_negative_cents, validation_message


class Command(BaseCommand):
    help = (
        "Create a company (merchant). --hold-over / --decline-over are risk limits in cents "
        "(defaults 1000000 / 2500000); --staged puts it in staged rollout; --account-validation is the policy "
        "for WEB debits to accounts not validated (off, require, prenote_first; default off); --mandate-policy "
        "require makes every consumer debit need an active mandate (default off); --sandbox makes a "
        "sandbox company (its entries never go to a bank, its keys start with vk_test_, it may use the /sandbox "
        'routes). Prints {"companyUuid"}.'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--name", required=True)
        parser.add_argument("--hold-over", type=non_negative_cents, metavar="CENTS")
        parser.add_argument("--decline-over", type=non_negative_cents, metavar="CENTS")
        parser.add_argument("--staged", action="store_true", help="staged role-based rollout")
        parser.add_argument("--sandbox", action="store_true", help="a sandbox company (its entries never reach a bank)")
        parser.add_argument(
            "--account-validation",
            choices=MerchantSettings.AccountValidation.values,
            default=MerchantSettings.AccountValidation.OFF,
            metavar="POLICY",
            help="off (default), require or prenote_first",
        )
        parser.add_argument(
            "--mandate-policy",
            choices=MerchantSettings.MandatePolicy.values,
            default=MerchantSettings.MandatePolicy.OFF,
            metavar="POLICY",
            help="off (default) or require",
        )

    def handle(
        self,
        *args,
        name: str,
        hold_over: int | None,
        decline_over: int | None,
        staged: bool,
        account_validation: str,
        mandate_policy: str,
        sandbox: bool,
        **options,
    ):
        if not name.strip():
            raise CommandError("--name must not be blank")
        try:
            company = company_create(
                name=name.strip(),
                hold_over=hold_over,
                decline_over=decline_over,
                staged_rollout=staged,
                account_validation=account_validation,
                mandate_policy=mandate_policy,
                sandbox=sandbox,
            )
        except ValidationError as exc:
            raise CommandError(validation_message(exc)) from None
        emit(self, {"companyUuid": str(company.uuid)})
