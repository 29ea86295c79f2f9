"""The test bank's statements of our settlement account (CONTRACT 19): the lines a bank posts for a file it took
(its settlement, a line per file or per batch, and the returns it sends back) and, with noise, what else a real
account shows (fees, interest, other businesses' lines, one settlement split over two lines), written as BAI2 or
camt.053 by hand here: an independent writer, so the service's readers (the `bai2` and `pycamt` libraries) are
tested against text they did not write. Each posting keeps its truth (`label`) for the tests and the benchmark."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from xml.sax.saxutils import escape

from transactions import calendar

POSTINGS = ("file", "batch")
FORMATS = ("bai2", "camt053", "none")
DEBIT_CODES = {"27", "28", "37", "38"}
PRENOTE_CODES = {"23", "28", "33", "38"}
# BAI2 type codes, and the camt.053 bank transaction code (domain/family/sub-family) the test bank gives each.
SETTLEMENT_CREDIT, SETTLEMENT_DEBIT = "166", "466"
RETURN_DEBIT, RETURN_CREDIT = "557", "257"
FEE, INTEREST = "698", "354"
FOREIGN_CREDIT, FOREIGN_DEBIT = "142", "451"
CAMT_CODES = {
    SETTLEMENT_CREDIT: ("PMNT", "IDDT", "ACDT"),
    SETTLEMENT_DEBIT: ("PMNT", "ICDT", "ACDT"),
    RETURN_DEBIT: ("PMNT", "IDDT", "ARET"),
    RETURN_CREDIT: ("PMNT", "ICDT", "ARET"),
    FEE: ("ACMT", "MDOP", "CHRG"),
    INTEREST: ("ACMT", "MCOP", "INTR"),
    FOREIGN_CREDIT: ("PMNT", "RCDT", "ACDT"),
    FOREIGN_DEBIT: ("PMNT", "RDDT", "ACDT"),
}
CREDIT_CODES = {SETTLEMENT_CREDIT, RETURN_CREDIT, INTEREST, FOREIGN_CREDIT}


@dataclass(frozen=True)
class Posting:
    value_date: date
    amount: int
    type_code: str
    customer_reference: str
    text: str
    label: str  # the truth: "file:NAME@settlement day", "return:TRACE", "fee", "interest", "foreign"

    @property
    def direction(self) -> str:
        return "credit" if self.type_code in CREDIT_CODES else "debit"


def settlement_day(yymmdd: str) -> date:
    return calendar.next_business_day(datetime.strptime(yymmdd, "%y%m%d").date())  # noqa: DTZ007


def file_postings(name: str, parsed: dict, *, posting: str) -> list[Posting]:
    """A file's settlement: its debits as a credit to us and its credits as a debit, per settlement day, one
    line for the file (`NAME`) or one per batch (`NAME:batch number`)."""
    sums: dict[tuple[str, date, str], int] = {}
    for batch in parsed["batches"]:
        day = settlement_day(batch["effective_date"])
        key = name if posting == "file" else f"{name}:{batch['batch_number']}"
        for entry in batch["entries"]:
            code = f"{entry['txn_code']:02d}"
            if code in PRENOTE_CODES or not entry["amount_cents"]:
                continue
            side = SETTLEMENT_CREDIT if code in DEBIT_CODES else SETTLEMENT_DEBIT
            sums[(key, day, side)] = sums.get((key, day, side), 0) + entry["amount_cents"]
    return [
        Posting(day, amount, side, key, "ACH SETTLEMENT", f"file:{name}@{day.isoformat()}")
        for (key, day, side), amount in sums.items()
        if amount
    ]


def return_postings(items: list[tuple[str, int, bool, date]]) -> list[Posting]:
    """Each returned entry (trace, amount, whether it was a debit, the day the return settles) as its line."""
    return [
        Posting(day, amount, RETURN_DEBIT if debit else RETURN_CREDIT, trace, "ACH RETURN", f"return:{trace}")
        for trace, amount, debit, day in items
        if amount
    ]


def noise_add(postings: list[Posting], rng: random.Random, *, day: date) -> list[Posting]:
    """A real account's other lines: a fee and sometimes interest, lines of other businesses (some of our own
    amounts, under their references), and one of our settlements split over two lines."""
    noisy = list(postings)
    settlements = [index for index, posting in enumerate(noisy) if posting.label.startswith("file:")]
    if settlements:
        index = rng.choice(settlements)
        whole = noisy[index]
        if whole.amount > 1:
            part = rng.randint(1, whole.amount - 1)
            noisy[index : index + 1] = [replace(whole, amount=part), replace(whole, amount=whole.amount - part)]
    noisy.append(Posting(day, rng.randint(100, 5000), FEE, "", "ACH FILE FEE", "fee"))
    if rng.random() < 0.3:
        noisy.append(Posting(day, rng.randint(1, 20000), INTEREST, "", "INTEREST", "interest"))
    for _ in range(rng.randint(1, 3)):
        amount = rng.choice(postings).amount if postings and rng.random() < 0.5 else rng.randint(100, 10_000_000)
        reference = f"ACH_{day:%Y%m%d}_{rng.choice('ABCDEFGH')}_{rng.getrandbits(32):08x}.ach"
        code = rng.choice((FOREIGN_CREDIT, FOREIGN_DEBIT))
        noisy.append(Posting(day, amount, code, reference, "ACH OTHER ORIGINATOR", "foreign"))
    rng.shuffle(noisy)
    return noisy


def _signed(posting: Posting) -> int:
    return posting.amount if posting.direction == "credit" else -posting.amount


def bai2_text(*, account: str, day: date, opening: int, postings: list[Posting], file_id: str) -> str:
    """One file, one group, one account: opening and closing ledger (010, 015), a 16 record a posting."""
    closing = opening + sum(_signed(posting) for posting in postings)
    created = datetime.now(tz=UTC)
    details = [
        f"16,{posting.type_code},{posting.amount},0,SIM{file_id}{number:05d},{posting.customer_reference},"
        f"{posting.text}"
        for number, posting in enumerate(postings, 1)
    ]
    account_total = opening + closing + sum(posting.amount for posting in postings)
    account_records = [f"03,{account},USD,010,{opening},,,015,{closing},,/", *details]
    account_records.append(f"49,{account_total},{len(account_records) + 1}/")
    group = [f"02,VAULT,SIMBANK,1,{day:%y%m%d},2400,USD,2/", *account_records]
    group.append(f"98,{account_total},1,{len(group) + 1}/")
    records = [f"01,SIMBANK,VAULT,{created:%y%m%d},{created:%H%M},{file_id},,,2/", *group]
    records.append(f"99,{account_total},1,{len(records) + 1}/")
    return "\n".join(records) + "\n"


def _camt_amount(cents: int) -> str:
    return f"{abs(cents) // 100}.{abs(cents) % 100:02d}"


def _camt_balance(code: str, cents: int, day: date) -> str:
    indicator = "CRDT" if cents >= 0 else "DBIT"
    return (
        f'<Bal><Tp><CdOrPrtry><Cd>{code}</Cd></CdOrPrtry></Tp><Amt Ccy="USD">{_camt_amount(cents)}</Amt>'
        f"<CdtDbtInd>{indicator}</CdtDbtInd><Dt><Dt>{day.isoformat()}</Dt></Dt></Bal>"
    )


def _camt_entry(posting: Posting, reference: str) -> str:
    domain, family, sub_family = CAMT_CODES[posting.type_code]
    indicator = "CRDT" if posting.direction == "credit" else "DBIT"
    details = (
        f"<NtryDtls><TxDtls><Refs><EndToEndId>{escape(posting.customer_reference)}</EndToEndId></Refs></TxDtls>"
        "</NtryDtls>"
        if posting.customer_reference
        else ""
    )
    return (
        f'<Ntry><Amt Ccy="USD">{_camt_amount(posting.amount)}</Amt><CdtDbtInd>{indicator}</CdtDbtInd>'
        f"<Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>{posting.value_date.isoformat()}</Dt></BookgDt>"
        f"<ValDt><Dt>{posting.value_date.isoformat()}</Dt></ValDt><AcctSvcrRef>{reference}</AcctSvcrRef>"
        f"<BkTxCd><Domn><Cd>{domain}</Cd><Fmly><Cd>{family}</Cd><SubFmlyCd>{sub_family}</SubFmlyCd></Fmly></Domn>"
        f"</BkTxCd>{details}<AddtlNtryInf>{escape(posting.text)}</AddtlNtryInf></Ntry>"
    )


def camt053_text(*, account: str, day: date, opening: int, postings: list[Posting], file_id: str) -> str:
    """A camt.053.001.08 Bank-to-Customer Statement of one account (Othr/Id: a US account has no IBAN)."""
    closing = opening + sum(_signed(posting) for posting in postings)
    created = datetime.now(tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    entries = "".join(_camt_entry(posting, f"SIM{file_id}{number:05d}") for number, posting in enumerate(postings, 1))
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>'
        f"<GrpHdr><MsgId>SIM{file_id}</MsgId><CreDtTm>{created}</CreDtTm></GrpHdr>"
        f"<Stmt><Id>SIM{file_id}</Id><CreDtTm>{created}</CreDtTm>"
        f"<Acct><Id><Othr><Id>{escape(account)}</Id></Othr></Id><Ccy>USD</Ccy></Acct>"
        f"{_camt_balance('OPBD', opening, day)}{_camt_balance('CLBD', closing, day)}{entries}</Stmt>"
        "</BkToCstmrStmt></Document>\n"
    )


WRITERS = {"bai2": (bai2_text, ".bai2"), "camt053": (camt053_text, ".camt053.xml")}
