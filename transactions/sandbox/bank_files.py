"""The bank's side of a return: the NACHA return / NOC file an RDFI would send back for entries we originated. The
sandbox plays the bank with it (services.py), and the tests and benches write their return files with it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.conf import settings

from transactions.ach import nacha
from transactions.ach.origination import sec_code_for
from transactions.models import Transaction


def return_file_for(entries: Sequence[tuple[Transaction, str, dict[str, str]]], *, at: datetime) -> str:
    """A NACHA return / NOC file for originated transactions, as their RDFI would send it back:
    (transaction, R.. or C.. code, corrected values for a NOC). For tests and sandbox runs."""

    def _wire(txn: Transaction, corrected: dict[str, str]) -> dict[str, str]:
        wire = dict(corrected)
        if "accountType" in wire:  # the file carries the corrected transaction code, not the account type
            wire["transactionCode"] = nacha.TRANSACTION_CODES[(txn.type, wire.pop("accountType"))]
        return wire

    specs = [
        nacha.ReturnSpec(
            kind="return" if code.startswith("R") else "noc",
            code=code,
            original_trace=txn.trace_number,
            original_transaction_code=nacha.TRANSACTION_CODES[(txn.type, txn.account_type)],
            routing_number=txn.routing_number,
            account_number=txn.account_number or "",
            amount=txn.amount,
            individual_name=txn.name,
            company_name=txn.company.name,
            company_identification=txn.company.ach_company_id,
            sec_code=sec_code_for(txn),
            corrected=_wire(txn, corrected),
        )
        for txn, code, corrected in entries
    ]
    # Sent back to us by the bank we send our files to.
    return nacha.return_file_text(
        items=specs,
        rdfi_routing=settings.ACH_IMMEDIATE_DESTINATION,
        odfi_routing=settings.ACH_IMMEDIATE_ORIGIN,
        created_at=at,
    )
