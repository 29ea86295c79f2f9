"""The sandbox's "Simulate" action on the transaction admin: the bank's answer, for sandbox companies only."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet

from transactions.ach.admin import apply_to_selected
from transactions.models import Transaction
from transactions.sandbox.services import sandbox_notice_simulate, sandbox_return_simulate
from vault.errors import ApiError


def _simulate(code: str):
    def service(txn: Transaction, at) -> None:
        if not code:
            raise ApiError("type a return (R01) or change (C01) code in the sandbox code box first")
        simulate = sandbox_notice_simulate if code.startswith("C") else sandbox_return_simulate
        simulate(company=txn.company, transaction_uuid=txn.uuid, code=code)

    return service


@admin.action(
    description="Simulate the bank's answer (sandbox companies only): return or NOC with the sandbox code",
    permissions=["simulate_sandbox"],
)
def simulate_sandbox(modeladmin, request, queryset: QuerySet[Transaction]) -> None:
    code = (request.POST.get("sandbox_code") or "").strip().upper()
    apply_to_selected(modeladmin, request, queryset, "simulated", _simulate(code))
