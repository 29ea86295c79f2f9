"""The back-office groups a staff user is put in (`create_staff_user --group`): one table, read by the data
migrations that seed the groups and by the command. A staff user still sees only the companies they are a
member of (vault.admin_scoping)."""

from __future__ import annotations

from dataclasses import dataclass

# Every model of these apps is viewable by every back-office group: customers, saved methods, transactions and
# their trail, batches, settlements, holds, alerts, events and deliveries, the payers' mandates and their schedules.
VIEWED_APPS = ("customers", "payments", "transactions", "events", "mandates", "schedules")


@dataclass(frozen=True)
class StaffGroup:
    name: str
    description: str
    # "app_label.codename" beyond viewing VIEWED_APPS.
    grants: tuple[str, ...]


STAFF_GROUPS: dict[str, StaffGroup] = {
    group.name: group
    for group in (
        StaffGroup(
            name="Support",
            description="answers merchants: reads customers, methods, transactions and events; releases holds",
            grants=(
                "accounts.view_company",
                "customers.change_customer",
                "transactions.release_hold",
                "transactions.acknowledge_exception",
                "mandates.revoke_mandate",
                "schedules.stop_schedule",
            ),
        ),
        StaffGroup(
            name="Risk",
            description="runs the return-rate program: holds, rejects, restores, limits, return policies",
            grants=(
                "accounts.view_company",
                "accounts.change_company",
                "accounts.manage_risk_controls",
                "customers.change_customer",
                "transactions.release_hold",
                "transactions.reject_transaction",
                "transactions.restore_transaction",
                "transactions.acknowledge_exception",
                "customers.activate_customer",
                "transactions.lift_debithold",
                "transactions.add_returnpolicy",
                "transactions.change_returnpolicy",
                "transactions.delete_returnpolicy",
                "transactions.add_riskreview",
                "transactions.change_riskreview",
                "mandates.revoke_mandate",
                "schedules.stop_schedule",
            ),
        ),
        StaffGroup(
            name="Finance",
            description="reconciles the bank's statements: works the exceptions queue, matches by hand with a reason, "
            "asks for and approves (never their own) write-offs",
            grants=(
                "reconciliation.view_statement",
                "reconciliation.view_statementline",
                "reconciliation.view_expectedpayment",
                "reconciliation.view_match",
                "reconciliation.view_reconciliationexception",
                "reconciliation.match_by_hand",
                "reconciliation.ask_write_off",
                "reconciliation.approve_write_off",
            ),
        ),
    )
}


def staff_groups_sync(apps, *, missing_ok: bool = False) -> None:
    """Create or update every group of STAFF_GROUPS with exactly its permissions. `apps` is a migration's app
    registry (or django.apps.apps); the permissions are created first, as post_migrate would later. An early
    migration passes `missing_ok`: a grant whose permission a later migration adds is left for that one. So every
    backoffice migration that syncs passes it but the latest, which depends on the migrations adding each grant."""
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        stub = (
            getattr(app_config, "models_module", None) is None
        )  # a migration's app config: create_permissions skips it unless set
        if stub:
            app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        if stub:
            app_config.models_module = None
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    for group in STAFF_GROUPS.values():
        wanted = permission_model.objects.filter(content_type__app_label__in=VIEWED_APPS, codename__startswith="view_")
        found = list(wanted)
        for grant in group.grants:
            app_label, codename = grant.split(".")
            permission = permission_model.objects.filter(content_type__app_label=app_label, codename=codename).first()
            if permission is None and missing_ok:
                continue
            if permission is None:
                raise LookupError(f"back-office group {group.name}: no permission {grant}")
            found.append(permission)
        row, _ = group_model.objects.get_or_create(name=group.name)
        row.permissions.set(found)
