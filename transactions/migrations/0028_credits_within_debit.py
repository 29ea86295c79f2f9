"""Credits never exceed the debit (CONTRACT 12), kept by the database as well as by transactions.charges.reversal:
the refunds of a debit and its reversal credit that paid or may still pay (neither Voided, Declined, Rejected nor
Returned) add up to at most the debit's amount. Row triggers on the transaction table check it whenever such a credit
is written or comes back into a paying status; their WHEN leaves every other row without a call. On PostgreSQL the
check locks the debit's row first (as the routes do), so two writers of one debit's credits go one after the other;
SQLite writes one at a time anyway. A violation is an IntegrityError naming transaction_credits_within_debit."""

from django.db import migrations

from vault.migration_sql import run_sql_by_vendor

NOT_PAID = "('Voided', 'DECLINED', 'Rejected', 'Returned')"
A_CREDIT_OF_A_DEBIT = "(NEW.refund_of_id IS NOT NULL OR (NEW.type = 'Credit' AND NEW.reversal_uuid IS NOT NULL))"
PAYS_AGAIN = (
    f"{A_CREDIT_OF_A_DEBIT} AND NEW.status NOT IN {NOT_PAID} AND (OLD.status IN {NOT_PAID} "
    "OR OLD.amount <> NEW.amount OR OLD.refund_of_id IS DISTINCT FROM NEW.refund_of_id "
    "OR OLD.reversal_uuid IS DISTINCT FROM NEW.reversal_uuid)"
)
UPDATED_COLUMNS = "status, amount, refund_of_id, reversal_uuid, type"
CONSTRAINT = "transaction_credits_within_debit"

POSTGRES_FORWARD = [
    f"""
    CREATE OR REPLACE FUNCTION transactions_credits_within_debit() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        debit_id bigint := NEW.refund_of_id;
        debit_amount bigint;
        debit_reversal uuid;
        paid bigint;
    BEGIN
        IF debit_id IS NULL THEN
            SELECT id INTO debit_id FROM transactions_transaction WHERE uuid = NEW.reversal_uuid;
        END IF;
        SELECT amount, reversal_uuid INTO debit_amount, debit_reversal
        FROM transactions_transaction WHERE id = debit_id FOR UPDATE;
        IF NOT FOUND THEN
            RETURN NULL;
        END IF;
        SELECT coalesce(sum(amount), 0) INTO paid FROM transactions_transaction
        WHERE refund_of_id = debit_id AND status NOT IN {NOT_PAID};
        paid := paid + coalesce((SELECT amount FROM transactions_transaction
                                 WHERE uuid = debit_reversal AND type = 'Credit' AND status NOT IN {NOT_PAID}), 0);
        IF paid > debit_amount THEN
            RAISE EXCEPTION USING ERRCODE = 'check_violation', CONSTRAINT = '{CONSTRAINT}',
                MESSAGE = 'the credits of transaction ' || debit_id || ' (' || paid
                          || ' cents) would exceed its amount (' || debit_amount || ' cents)';
        END IF;
        RETURN NULL;
    END $$
    """,  # noqa: S608 - constants, no input
    f"""
    CREATE TRIGGER transactions_credits_within_debit_inserted AFTER INSERT ON transactions_transaction
    FOR EACH ROW WHEN {A_CREDIT_OF_A_DEBIT} EXECUTE FUNCTION transactions_credits_within_debit()
    """,
    f"""
    CREATE TRIGGER transactions_credits_within_debit_updated
    AFTER UPDATE OF {UPDATED_COLUMNS} ON transactions_transaction
    FOR EACH ROW WHEN ({PAYS_AGAIN}) EXECUTE FUNCTION transactions_credits_within_debit()
    """,
]
POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS transactions_credits_within_debit_updated ON transactions_transaction",
    "DROP TRIGGER IF EXISTS transactions_credits_within_debit_inserted ON transactions_transaction",
    "DROP FUNCTION IF EXISTS transactions_credits_within_debit()",
]

_SQLITE_CHECK = f"""
    BEGIN
        SELECT RAISE(ABORT, '{CONSTRAINT}')
        FROM transactions_transaction AS d
        WHERE d.id = coalesce(NEW.refund_of_id,
                              (SELECT id FROM transactions_transaction WHERE uuid = NEW.reversal_uuid))
          AND d.amount < (SELECT coalesce(sum(c.amount), 0) FROM transactions_transaction AS c
                          WHERE (c.refund_of_id = d.id OR (c.uuid = d.reversal_uuid AND c.type = 'Credit'))
                            AND c.status NOT IN {NOT_PAID});
    END
"""  # noqa: S608 - constants, no input
SQLITE_FORWARD = [
    f"""
    CREATE TRIGGER transactions_credits_within_debit_inserted AFTER INSERT ON transactions_transaction
    FOR EACH ROW WHEN {A_CREDIT_OF_A_DEBIT}
    {_SQLITE_CHECK}
    """,
    f"""
    CREATE TRIGGER transactions_credits_within_debit_updated AFTER UPDATE OF {UPDATED_COLUMNS}
    ON transactions_transaction FOR EACH ROW WHEN {PAYS_AGAIN}
    {_SQLITE_CHECK}
    """,
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS transactions_credits_within_debit_updated",
    "DROP TRIGGER IF EXISTS transactions_credits_within_debit_inserted",
]


class Migration(migrations.Migration):
    dependencies = [("transactions", "0027_debithold_lift_permission")]

    operations = [
        run_sql_by_vendor(
            {"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD},
            {"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD},
        )
    ]
