"""The proof-of-authorization packet (CONTRACT 14): one PDF a merchant hands its bank when a payer disputes a debit
(R10/R11; Nacha gives 10 banking days). Built with fpdf2: pure Python, no system libraries (reportlab's open
edition is as able, but fpdf2 is already a dependency, smaller, and draws a table in a few calls). The text is
set in a core font, which knows Latin-1 only: a character outside it is printed as `?` and the packet says so;
the SHA-256 it shows is always of the text as accepted."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from mandates.models import Mandate
from transactions.models import Transaction
from vault.csv_export import CSVRenderer
from vault.records import iso_utc, mask

PDF_CONTENT_TYPE = "application/pdf"
_NEXT_LINE = {"new_x": XPos.LMARGIN, "new_y": YPos.NEXT}


class PDFRenderer(CSVRenderer):
    """Lets `Accept: application/pdf` through (the view answers the PDF itself); an error is the JSON envelope."""

    media_type = PDF_CONTENT_TYPE
    format = "pdf"
    charset = None


def mandate_debits(mandate: Mandate) -> list[dict[str, Any]]:
    """Every debit made under the mandate, oldest first, as the packet lists it."""
    rows = (
        Transaction.objects.filter(company_id=mandate.company_id, mandate=mandate)
        .order_by("created_at", "id")
        .values("uuid", "created_at", "effective_date", "amount", "status", "trace_number", "standard_entry_class_code")
    )
    return list(rows)


def _latin1(text: str) -> tuple[str, bool]:
    printable = text.encode("latin-1", "replace").decode("latin-1")
    return printable, printable != text


def _dollars(cents: int | None) -> str:
    return "-" if cents is None else f"${cents / 100:,.2f}"


class _Packet(FPDF):
    def footer(self) -> None:
        self.set_y(-12)
        self.set_font("Helvetica", size=7)
        self.cell(0, 5, f"Proof of authorization, page {self.page_no()}/{{nb}}", align="C")


def _one_line(value: str) -> str:
    """A field's value on one line: a control character (a newline stored before the API refused them) printed as
    its escape, so no value prints what looks like another field of the packet (security review L3)."""
    return "".join(character if character.isprintable() else f"\\x{ord(character):02x}" for character in value)


def _pairs(pdf: FPDF, title: str, pairs: list[tuple[str, str]]) -> None:
    pdf.set_font("Helvetica", "B", 11)
    pdf.cell(0, 7, title, **_NEXT_LINE)
    for label, value in pairs:
        pdf.set_font("Helvetica", "B", 8)
        pdf.cell(42, 5, label)
        pdf.set_font("Helvetica", size=8)
        pdf.multi_cell(0, 5, _latin1(_one_line(value))[0], **_NEXT_LINE)
    pdf.ln(2)


def proof_pdf(mandate: Mandate, *, debits: list[dict[str, Any]], generated_at: datetime) -> bytes:
    """The packet: merchant, payer, account, the wording and its hash, how/when/where it was accepted, the evidence
    file's hash, the mandate's state, and every debit under it with its trace number and status."""
    company, customer, method = mandate.company, mandate.customer, mandate.payment_method
    pdf = _Packet(format="Letter")
    pdf.set_title(f"Proof of authorization {mandate.uuid}")
    pdf.set_creator("vault")
    pdf.alias_nb_pages()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 15)
    pdf.cell(0, 9, "Proof of authorization (ACH debit)", **_NEXT_LINE)
    pdf.set_font("Helvetica", size=8)
    pdf.cell(0, 5, f"Mandate {mandate.uuid}, generated {iso_utc(generated_at)}", **_NEXT_LINE)
    pdf.ln(3)
    _pairs(
        pdf,
        "Originator and payer",
        [
            ("Merchant", f"{company.name} ({company.uuid})"),
            ("Payer", f"{customer.holder_name} ({customer.uuid})"),
            ("Account", f"{method.account_type} {mask(method.last_four)}, routing {method.routing_number}"),
        ],
    )
    _pairs(
        pdf,
        "Authorization",
        [
            ("SEC code / type", f"{mandate.sec_code}, {mandate.type}"),
            ("Terms", f"max {_dollars(mandate.max_amount)}, frequency {mandate.frequency or 'not stated'}"),
            ("Accepted at", iso_utc(mandate.accepted_at) or ""),
            ("Channel", mandate.channel),
            ("IP address", mandate.ip_address or "-"),
            ("User agent", mandate.user_agent or "-"),
            ("Text SHA-256", mandate.text_sha256),
            ("Evidence SHA-256", mandate.evidence_sha256 or "no evidence file"),
            ("Evidence size", f"{mandate.evidence_bytes} bytes" if mandate.evidence_bytes else "-"),
            ("Status", mandate.status),
            ("Revoked", f"{iso_utc(mandate.revoked_at)}: {mandate.revoked_reason}" if mandate.revoked_at else "-"),
            ("Kept until", iso_utc(mandate.retain_until) or "two years after it ends"),
        ],
    )
    text, replaced = _latin1(mandate.text)
    pdf.set_font("Helvetica", "B", 11)
    pdf.cell(0, 7, "Text the payer accepted", **_NEXT_LINE)
    pdf.set_font("Courier", size=8)
    pdf.multi_cell(0, 4, text, border=1, padding=2, **_NEXT_LINE)
    if replaced:
        pdf.set_font("Helvetica", "I", 7)
        pdf.cell(0, 4, "Characters outside Latin-1 are shown as '?'; the SHA-256 is of the text as accepted.")
        pdf.ln(4)
    pdf.ln(3)
    _debits_table(pdf, debits)
    return bytes(pdf.output())


def _debits_table(pdf: FPDF, debits: list[dict[str, Any]]) -> None:
    pdf.set_font("Helvetica", "B", 11)
    pdf.cell(0, 7, f"Debits under this authorization ({len(debits)})", **_NEXT_LINE)
    pdf.set_font("Helvetica", size=7)
    if not debits:
        pdf.cell(0, 5, "None yet.", **_NEXT_LINE)
        return
    with pdf.table(col_widths=(30, 18, 17, 10, 27, 16, 62), text_align="LEFT", line_height=4.5) as table:
        table.row(["Created (UTC)", "Effective", "Amount", "SEC", "Trace number", "Status", "Transaction"])
        for debit in debits:
            table.row(
                [
                    iso_utc(debit["created_at"])[:19].replace("T", " "),
                    debit["effective_date"].isoformat(),
                    _dollars(debit["amount"]),
                    debit["standard_entry_class_code"],
                    debit["trace_number"] or "not sent yet",
                    debit["status"],
                    str(debit["uuid"]),
                ]
            )
