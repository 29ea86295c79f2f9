"""The ledger's tables (CONTRACT 17) and the promises the database keeps for them.

PostgreSQL: a posting and an entry refuse UPDATE and DELETE (a correction is a new entry; Django's test flush
TRUNCATEs, which fires no row trigger), and a deferred constraint trigger refuses, at commit, an entry whose postings
do not sum to zero. SQLite: a posting refuses UPDATE; the write path (ledger.postings) refuses an unbalanced entry
before it inserts it, and a DELETE trigger would stop Django's test flush, which deletes every row there."""

from django.db import migrations

from vault.company_keys import company_keys
from vault.migration_sql import run_sql_by_vendor

BALANCED = "ledger_entry_balanced"
APPEND_ONLY = "ledger_append_only"

POSTGRES_FORWARD = [
    f"""
    CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation', CONSTRAINT = '{APPEND_ONLY}',
            MESSAGE = TG_TABLE_NAME || ' rows are never changed or deleted: a correction is a new entry';
    END $$
    """,
    "CREATE TRIGGER ledger_posting_append_only BEFORE UPDATE OR DELETE ON ledger_posting "
    "FOR EACH ROW EXECUTE FUNCTION ledger_append_only()",
    "CREATE TRIGGER ledger_entry_append_only BEFORE UPDATE OR DELETE ON ledger_journalentry "
    "FOR EACH ROW EXECUTE FUNCTION ledger_append_only()",
    f"""
    CREATE FUNCTION ledger_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        total bigint;
    BEGIN
        SELECT sum(amount) INTO total FROM ledger_posting WHERE entry_id = NEW.entry_id;
        IF total <> 0 THEN
            RAISE EXCEPTION USING ERRCODE = 'check_violation', CONSTRAINT = '{BALANCED}',
                MESSAGE = 'the postings of journal entry ' || NEW.entry_id || ' sum to ' || total || ', not 0';
        END IF;
        RETURN NULL;
    END $$
    """,
    f"CREATE CONSTRAINT TRIGGER {BALANCED} AFTER INSERT ON ledger_posting DEFERRABLE INITIALLY DEFERRED "
    "FOR EACH ROW EXECUTE FUNCTION ledger_entry_balanced()",
]
POSTGRES_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {BALANCED} ON ledger_posting",
    "DROP TRIGGER IF EXISTS ledger_posting_append_only ON ledger_posting",
    "DROP TRIGGER IF EXISTS ledger_entry_append_only ON ledger_journalentry",
    "DROP FUNCTION IF EXISTS ledger_entry_balanced()",
    "DROP FUNCTION IF EXISTS ledger_append_only()",
]
SQLITE_FORWARD = [
    f"""
    CREATE TRIGGER ledger_posting_append_only BEFORE UPDATE ON ledger_posting
    BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: ledger_posting rows are never changed'); END
    """,
    f"""
    CREATE TRIGGER ledger_entry_append_only BEFORE UPDATE ON ledger_journalentry
    BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: ledger_journalentry rows are never changed'); END
    """,
]
SQLITE_BACKWARD = ["DROP TRIGGER IF EXISTS ledger_posting_append_only", "DROP TRIGGER IF EXISTS ledger_entry_append_only"]



class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [
        company_keys("ledger.JournalEntry", "ledger.Posting", "ledger.BalanceCheckpoint"),
        run_sql_by_vendor(
            {"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD},
            {"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD},
        ),
    ]
