"""A statement in (CONTRACT 19): BAI2 read with the `bai2` library and camt.053 with `pycamt`, from text the test
bank writes by hand; `import_statement FILE` keeps it by name and SHA-256 (the same file twice reads nothing),
checks BANK_SETTLEMENT_ACCOUNT, and refuses a file it cannot read whole with one line."""

from __future__ import annotations

import io
import json
from datetime import date

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bank import statements
from reconciliation.formats import StatementError, statement_read
from reconciliation.models import Statement, StatementLine

pytestmark = pytest.mark.usefixtures("ordinary_banking_day")

DAY = date(2026, 12, 8)
ACCOUNT = "9876543210"
POSTINGS = [
    statements.Posting(
        DAY, 123_456_789, statements.SETTLEMENT_CREDIT, "ACH_20261207_A_1a2b3c4d.ach", "ACH SETTLEMENT", "file:x"
    ),
    statements.Posting(DAY, 2500, statements.RETURN_DEBIT, "091000010000001", "ACH RETURN", "return:x"),
    statements.Posting(DAY, 616, statements.FEE, "", "ACH FILE FEE", "fee"),
]


def _text(kind: str, *, account: str = ACCOUNT, opening: int = -5000) -> str:
    writer, _suffix = statements.WRITERS[kind]
    return writer(account=account, day=DAY, opening=opening, postings=POSTINGS, file_id="1a2b3c4d")


@pytest.mark.parametrize("kind", ["bai2", "camt053"])
def test_both_formats_read_to_the_same_lines_and_balances_to_the_cent(kind):
    draft = statement_read(_text(kind).encode())
    assert (draft.format, draft.account, draft.statement_date) == (kind, ACCOUNT, DAY)
    assert (draft.opening_balance, draft.closing_balance) == (-5000, -5000 + 123_456_789 - 2500 - 616)
    assert [(line.direction, line.amount, line.customer_reference, line.value_date) for line in draft.lines] == [
        ("credit", 123_456_789, "ACH_20261207_A_1a2b3c4d.ach", DAY),
        ("debit", 2500, "091000010000001", DAY),
        ("debit", 616, "", DAY),
    ]
    assert draft.lines[2].type_code in ("698", "ACMT/MDOP/CHRG")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("hello", "neither BAI2"),
        ("01,SIMBANK,VAULT,261208,0100,1,,,2/\n99,0,0,2/\n", "not a BAI2 file"),
        ('<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><x>', "not a camt.053"),
    ],
)
def test_a_file_that_does_not_read_is_refused_whole(text, says):
    with pytest.raises(StatementError, match=says):
        statement_read(text.encode())


def test_a_tampered_bai2_control_total_is_refused():
    text = _text("bai2").replace("16,698,616,", "16,698,617,")
    with pytest.raises(StatementError, match="control total"):
        statement_read(text.encode())


def _import(path) -> dict:
    out = io.StringIO()
    call_command("import_statement", str(path), stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.django_db
def test_import_statement_keeps_a_file_once(tmp_path, settings):
    settings.BANK_SETTLEMENT_ACCOUNT = ACCOUNT
    path = tmp_path / "STATEMENT_20261208.bai2"
    path.write_text(_text("bai2"))
    first = _import(path)
    assert first["lines"] == 3 and first["duplicate"] is False
    statement = Statement.objects.get()
    assert str(statement.uuid) == first["statementUuid"] and statement.account_last_four == "3210"
    copy = tmp_path / "SAME_CONTENT_OTHER_NAME.bai2"
    copy.write_bytes(path.read_bytes())
    assert _import(path) == {"statementUuid": first["statementUuid"], "lines": 0, "duplicate": True}
    assert _import(copy) == {"statementUuid": first["statementUuid"], "lines": 0, "duplicate": True}
    assert StatementLine.objects.count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("configured", "says"),
    [
        (None, "BANK_SETTLEMENT_ACCOUNT is not set"),
        ("5555666677", "of account ending 3210, not our settlement account (BANK_SETTLEMENT_ACCOUNT, ending 6677)"),
    ],
)
def test_a_statement_of_another_account_or_none_configured_is_refused(tmp_path, settings, configured, says):
    settings.BANK_SETTLEMENT_ACCOUNT = configured
    path = tmp_path / "STATEMENT.camt053.xml"
    path.write_text(_text("camt053"))
    with pytest.raises(CommandError, match=says.replace("(", r"\(").replace(")", r"\)")):
        _import(path)
    assert not Statement.objects.exists()


@pytest.mark.django_db
def test_a_name_read_before_with_other_content_is_refused(tmp_path, settings):
    settings.BANK_SETTLEMENT_ACCOUNT = ACCOUNT
    path = tmp_path / "STATEMENT.bai2"
    path.write_text(_text("bai2"))
    _import(path)
    path.write_text(_text("bai2", opening=0))
    with pytest.raises(CommandError, match="with other content was read before"):
        _import(path)
