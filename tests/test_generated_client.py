"""A client generated from /api/schema/ works: openapi-python-client writes a Python package into a temporary
directory (nothing generated is kept), and that package, against a live server, creates a customer, saves a bank
account, charges it and reads the charge back from a reporting page and from the CSV export."""

from __future__ import annotations

import base64
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests import factories

PACKAGE = "vault_client"
# No post-generation hooks (formatters): the package is imported once and thrown away. The generator reads a PDF
# (a mandate's proof packet) as bytes only when told that it is a binary type, as a merchant's config would say.
GENERATOR_CONFIG = (
    f"package_name_override: {PACKAGE}\npost_hooks: []\n"
    "content_type_overrides:\n  application/pdf: application/octet-stream\n"
)


def _generate(schema_url: str, workdir: Path) -> Path:
    schema = workdir / "schema.json"
    schema.write_bytes(httpx.get(schema_url, params={"format": "json"}).raise_for_status().content)
    config = workdir / "generator.yaml"
    config.write_text(GENERATOR_CONFIG)
    generator = Path(sys.executable).with_name("openapi-python-client")
    output = workdir / PACKAGE
    result = subprocess.run(  # noqa: S603 - our own venv's executable, arguments we build
        [str(generator), "generate", "--path", str(schema), "--output-path", str(output), "--meta", "none"]
        + ["--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    return workdir


@pytest.fixture
def client_package(live_server, tmp_path, monkeypatch):
    root = _generate(f"{live_server.url}/api/schema/", tmp_path)
    monkeypatch.syspath_prepend(str(root))
    yield lambda name: importlib.import_module(f"{PACKAGE}.{name}")
    for module in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
        del sys.modules[module]


@pytest.mark.django_db(transaction=True)
def test_generated_client_creates_customer_saves_account_charges_it_and_reads_report(live_server, client_package):
    company = factories.CompanyFactory()
    raw_key = factories.issue_api_key(company).raw_key
    vault = client_package("client").AuthenticatedClient(
        base_url=live_server.url, token=base64.b64encode(f"{raw_key}:".encode()).decode(), prefix="Basic"
    )
    models = client_package("models")
    customer_create = client_package("api.customers.customer_create")
    payment_method_create = client_package("api.customers.payment_method_create")
    transaction_create = client_package("api.transactions.transaction_create_put")
    report = client_package("api.reporting.reporting_transactions_get")

    created = customer_create.sync_detailed(
        client=vault, body=models.CustomerCreateInputRequest(first_name="Ada", last_name="Lovelace")
    )
    assert created.status_code == 201, created.content
    customer_uuid = created.parsed.data.customer_uuid

    saved = payment_method_create.sync_detailed(
        client=vault,
        body=models.PaymentMethodCreateInputRequest(
            customer_uuid=customer_uuid,
            type_=models.PaymentMethodCreateInputTypeEnum.BANK,
            account_type=models.AccountTypeEnum.CHECKING,
            account_number="000123456789",
            routing_number="021000021",
        ),
    )
    assert saved.status_code == 201, saved.content
    method = saved.parsed.data
    assert method.display_name == "Checking ****6789" and method.is_default is True

    charged = transaction_create.sync_detailed(
        client=vault,
        idempotency_key="generated-client-1",
        body=models.ChargeInputRequest(
            method=models.TransactionMethodEnum.ACH,
            type_=models.TransactionTypeEnum.DEBIT,
            amount=1234,
            customer_uuid=customer_uuid,
            payment_method_uuid=method.payment_method_uuid,
            payment_details=models.BankDetailsRequest(
                name="Replaced by the saved method",
                account_type=models.AccountTypeEnum.CHECKING,
                account_number="0000",
                routing_number="021000021",
            ),
        ),
    )
    assert charged.status_code == 201, charged.content
    charge = charged.parsed.data
    assert charge.payment_details.account_number == "****6789" and charge.payment_details.name == "Ada Lovelace"

    page = report.sync_detailed(
        client=vault,
        page=0,
        page_size=10,
        columns=[models.ReportingTransactionsGetColumnsItem(key) for key in ("amount", "name", "accountNumber")],
        filters=models.ReportingTransactionsGetFilters.from_dict({"amount:gte": "1234", "method": "ACH"}),
    )
    assert page.status_code == 200, page.content
    rows = page.parsed.data
    assert [(row.uuid, row.amount, row.payment_details.account_number) for row in rows] == [
        (charge.uuid, 1234, "****6789")
    ]
    assert page.parsed.meta.pagination.total_filtered_rows == 1

    # F13: every list has the one meta.pagination; pageSize is optional where the API has a default.
    customers = client_package("api.customers.customer_list").sync(client=vault)
    assert [row.customer_uuid for row in customers.data] == [customer_uuid]
    assert (customers.meta.pagination.page, customers.meta.pagination.page_size) == (0, 50)
    assert customers.meta.pagination.total_rows == 1
    methods = client_package("api.customers.payment_method_list").sync(customer_uuid=customer_uuid, client=vault)
    assert [row.payment_method_uuid for row in methods.data.payment_methods] == [method.payment_method_uuid]
    assert methods.meta.pagination.total_rows == 1
    trail = client_package("api.transactions.transaction_events_get").sync(transaction_uuid=charge.uuid, client=vault)
    assert [row.event for row in trail.data] == ["created"] and trail.meta.pagination.page == 0
    event_list = client_package("api.events.event_list")
    events = event_list.sync(client=vault, page_size=1)
    assert len(events.data) == 1 and events.meta.pagination.total_rows is None
    following = event_list.sync(client=vault, page_size=1, cursor=events.meta.pagination.next_cursor)
    assert len(following.data) == 1 and following.data[0].id != events.data[0].id

    # F5: the CSV export is its own operation, read as text, with no paging parameter to send.
    export = client_package("api.reporting.reporting_transactions_csv_get")
    assert "page_size" not in inspect.signature(export.sync_detailed).parameters
    csv_text = export.sync(
        client=vault,
        columns=[models.ReportingTransactionsCsvGetColumnsItem(key) for key in ("amount", "name", "accountNumber")],
        filters=models.ReportingTransactionsCsvGetFilters.from_dict({"method": "ACH"}),
    )
    header, *lines = csv_text.strip().splitlines()
    assert "amount" in header and len(lines) == 1 and "1234" in lines[0] and "****6789" in lines[0]
