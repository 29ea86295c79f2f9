"""The ledger's opening entries: every transaction that holds money when the ledger arrives gets one entry that puts
its money where its status says (docs/ledger.md, "The journal templates"), so an existing deployment's balances are
right from the first day. Set-based (one INSERT of entries, one of postings per position); micro-entries of account
validations and seeded sample rows are left out, as the state owner leaves them out of its postings."""

from django.db import migrations
from django.utils import timezone

DESCRIPTION = "opening entry"
HOLDER = (
    "CASE WHEN t.method IN ('RTP', 'CRD') OR t.finality IN ('available', 'final') THEN 'available' ELSE 'pending' END"
)
# (transaction type, statuses, entry type, legs as (account SQL, sign)): where its money is in those statuses.
POSITIONS = [
    ("Debit", ("Processing",), "charge", (("'incoming'", 1), ("'clearing'", -1))),
    ("Debit", ("Settled", "Reversed"), "settlement", ((HOLDER, 1), ("'bank'", -1))),
    ("Credit", ("Pending", "HELD", "Processing"), "credit", (("'outgoing'", 1), ("'available'", -1))),
    ("Credit", ("Settled", "Reversed"), "settlement", (("'bank'", 1), ("'available'", -1))),
]
OWN = "t.amount <> 0 AND t.account_validation_id IS NULL AND t.seeded IS NULL"


def _uuid(vendor: str) -> str:
    return "gen_random_uuid()" if vendor == "postgresql" else "lower(hex(randomblob(16)))"


def _in(type: str, statuses: tuple[str, ...]) -> str:
    return f"t.type = '{type}' AND t.status IN ({', '.join(repr(s) for s in statuses)})"


def opening_entries(apps, schema_editor):
    uuid, at = _uuid(schema_editor.connection.vendor), timezone.now()
    with schema_editor.connection.cursor() as cursor:
        for type, statuses, entry_type, _legs in POSITIONS:
            cursor.execute(
                "INSERT INTO ledger_journalentry "  # noqa: S608 - constants
                "(uuid, company_id, type, amount, transaction_uuid, description, created_at, effective_date) "
                f"SELECT {uuid}, t.company_id, %s, t.amount, t.uuid, %s, %s, t.effective_date "
                f"FROM transactions_transaction t WHERE {OWN} AND {_in(type, statuses)}",
                [entry_type, DESCRIPTION, at],
            )
        for type, statuses, entry_type, ((first, first_sign), (second, second_sign)) in POSITIONS:
            # Both legs in one statement: an entry is balanced at the end of each (the test steps check at once).
            cursor.execute(
                "INSERT INTO ledger_posting (uuid, entry_id, company_id, account, amount, currency, created_at) "  # noqa: S608
                f"SELECT {uuid}, e.id, e.company_id, CASE WHEN l.n = 0 THEN {first} ELSE {second} END, "
                "e.amount * CASE WHEN l.n = 0 THEN %s ELSE %s END, 'USD', e.created_at "
                "FROM ledger_journalentry e JOIN transactions_transaction t "
                "ON t.uuid = e.transaction_uuid AND t.company_id = e.company_id "
                "CROSS JOIN (SELECT 0 AS n UNION ALL SELECT 1) l "
                f"WHERE e.description = %s AND e.type = %s AND {_in(type, statuses)} AND {OWN}",
                [first_sign, second_sign, DESCRIPTION, entry_type],
            )


class Migration(migrations.Migration):
    dependencies = [("transactions", "0035_return_reauthorized_by"), ("ledger", "0002_keys_and_promises")]

    operations = [migrations.RunPython(opening_entries, migrations.RunPython.noop, elidable=False)]
