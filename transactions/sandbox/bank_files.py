"""The bank's side of a return: the NACHA return / NOC file an RDFI would send back for entries we originated. The
sandbox plays the bank with it (services.py), and the tests and benches write their return files with it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.conf import settings

import nacha
from transactions.ach.origination import sec_code_for
from transactions.models import Transaction

Returned = tuple[Transaction, str, dict[str, str]]  # (transaction, R.. or C.. code, corrected values for a NOC)


def _batch_key(returned: Returned) -> tuple[str, str, str]:
    txn, code, _corrected = returned
    return txn.company.name, txn.company.ach_company_id, sec_code_for(txn) if code.startswith("R") else "COR"


def in_file_order(entries: Sequence[Returned]) -> list[Returned]:
    """The entries in the order `return_file_for` writes their items: one batch per company and SEC code (COR for
    notices), batches in the order their first entry comes, entries in their given order within a batch."""
    first: dict[tuple[str, str, str], int] = {}
    for returned in entries:
        first.setdefault(_batch_key(returned), len(first))
    return sorted(entries, key=lambda returned: first[_batch_key(returned)])


def return_spec(txn: Transaction, code: str, corrected: dict[str, str]) -> nacha.ReturnSpec:
    """What the entry's RDFI sends back for it: everything the entry went out with, and the code."""
    wire = dict(corrected)
    if "accountType" in wire:  # the file carries the corrected transaction code, not the account type
        wire["transactionCode"] = nacha.TRANSACTION_CODES[(txn.type, wire.pop("accountType"))]
    return nacha.ReturnSpec(
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
        corrected=wire,
    )


def return_file_of(specs: Sequence[nacha.ReturnSpec], *, at: datetime) -> str:
    """The file of these items, sent back to us by the bank we send our files to."""
    return nacha.return_file_text(
        items=specs,
        rdfi_routing=settings.ACH_IMMEDIATE_DESTINATION,
        odfi_routing=settings.ACH_IMMEDIATE_ORIGIN,
        created_at=at,
    )


def return_file_for(entries: Sequence[Returned], *, at: datetime) -> str:
    """A NACHA return / NOC file for originated transactions, as their RDFI would send it back:
    (transaction, R.. or C.. code, corrected values for a NOC), written in `in_file_order`. For tests and sandbox
    runs."""
    return return_file_of([return_spec(*returned) for returned in in_file_order(entries)], at=at)
