"""A return / notice-of-change file as an RDFI sends it back (the test bank, the sandbox and the tests)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from nacha.addenda98 import noc_addenda
from nacha.addenda99 import return_addenda
from nacha.entry_detail import Entry, return_transaction_code
from nacha.writer import BatchSpec, FileSpec, file_text


@dataclass(frozen=True)
class ReturnSpec:
    """What an RDFI needs to send back one return or notice of change for an entry it received."""

    kind: str  # "return" or "noc"
    code: str
    original_trace: str
    original_transaction_code: str
    routing_number: str
    account_number: str
    amount: int
    individual_name: str
    company_name: str
    company_identification: str
    sec_code: str
    corrected: dict[str, str] = field(default_factory=dict)


def return_file_text(*, items: Sequence[ReturnSpec], rdfi_routing: str, odfi_routing: str, created_at: datetime) -> str:
    """A return / NOC file as an RDFI would send it to the ODFI: one batch per company and SEC (COR for NOCs)."""
    batches: dict[tuple[str, str, str], list[Entry]] = {}
    for sequence, item in enumerate(items, start=1):
        trace = rdfi_routing[:8] + str(sequence).rjust(7, "0")
        if item.kind == "return":
            addenda = return_addenda(
                reason_code=item.code,
                original_trace=item.original_trace,
                original_routing=item.routing_number,
                trace_number=trace,
            )
            sec, amount = item.sec_code, item.amount
        else:
            addenda = noc_addenda(
                change_code=item.code,
                original_trace=item.original_trace,
                original_routing=item.routing_number,
                corrected=item.corrected,
                trace_number=trace,
            )
            sec, amount = "COR", 0
        entry = Entry(
            transaction_code=return_transaction_code(item.original_transaction_code),
            routing_number=item.routing_number,
            account_number=item.account_number,
            amount=amount,
            individual_id="",
            individual_name=item.individual_name,
            trace_number=trace,
            addenda=(addenda,),
        )
        batches.setdefault((item.company_name, item.company_identification, sec), []).append(entry)
    specs = [
        BatchSpec(
            company_name=name,
            company_identification=company_id,
            sec_code=sec,
            entry_description="RETURN",
            effective_date=created_at.date(),
            batch_number=number,
            entries=entries,
        )
        for number, ((name, company_id, sec), entries) in enumerate(batches.items(), start=1)
    ]
    return file_text(
        FileSpec(
            immediate_destination=odfi_routing,
            immediate_origin=rdfi_routing,
            destination_name="ODFI",
            origin_name="RDFI",
            originating_dfi=rdfi_routing[:8],
            created_at=created_at,
            file_id_modifier="A",
            batches=specs,
        )
    )
