"""transactions.DailyVolume: each company's charged volume of each Eastern day, split over up to 16 rows and kept by
triggers on the transaction table, so the daily volume limit (CONTRACT 6) reads a few rows instead of summing the
day's entries under the company's lock (a merchant with 20,000 entries a day paid 40-85 ms a charge for it).

PostgreSQL only (SQLite keeps summing the day's entries, transactions.risk.limits.daily_volume):
- an insert adds the counted rows' amounts in a statement-level trigger over the transition table (one upsert per
  statement, so a bulk load adds once per company and day); the row is chosen by the backend, so concurrent charges
  of one merchant mostly add to different rows;
- an update that changes whether a row counts (a void, a decline, a rejection, a restore) or what it counts takes
  the old amount off and adds the new one, in a row-level trigger whose WHEN leaves every other move (the lifecycle's
  Pending -> Processing -> Settled) without a call;
- a delete takes the counted amounts off the (company, day)'s lowest row, if it still has one (a company being
  deleted may have lost its rows first); a truncate empties the table.
What counts: a transaction neither Declined, Voided nor Rejected that is no account validation's entry
(VOLUME_EXCLUDED_STATUSES), on the Eastern day of its created_at."""

import django.db.models.deletion
from django.db import migrations, models

from vault.company_keys import company_keys
from vault.migration_sql import run_sql_by_vendor

COUNTS = "{row}.account_validation_id IS NULL AND {row}.status NOT IN ('DECLINED', 'Voided', 'Rejected')"
EASTERN_DAY = "({row}.created_at AT TIME ZONE 'America/New_York')::date"
ADD = """
    INSERT INTO transactions_dailyvolume (company_id, day, slot, amount) VALUES ({values})
    ON CONFLICT (company_id, day, slot) DO UPDATE SET amount = transactions_dailyvolume.amount + EXCLUDED.amount;
"""


def _row_added(row: str, sign: str) -> str:
    values = f"{row}.company_id, {EASTERN_DAY.format(row=row)}, mod(pg_backend_pid(), 16), {sign}{row}.amount"
    return f"IF {COUNTS.format(row=row)} THEN {ADD.format(values=values)} END IF;"


POSTGRES_FORWARD = [
    f"""
    CREATE OR REPLACE FUNCTION transactions_daily_volume_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO transactions_dailyvolume (company_id, day, slot, amount)
        SELECT company_id, {EASTERN_DAY.format(row="inserted")}, mod(pg_backend_pid(), 16), sum(amount)
        FROM inserted WHERE {COUNTS.format(row="inserted")}
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (company_id, day, slot) DO UPDATE SET amount = transactions_dailyvolume.amount + EXCLUDED.amount;
        RETURN NULL;
    END $$
    """,  # noqa: S608 - constants, no input
    """
    CREATE TRIGGER transactions_daily_volume_inserted AFTER INSERT ON transactions_transaction
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION transactions_daily_volume_inserted()
    """,
    f"""
    CREATE OR REPLACE FUNCTION transactions_daily_volume_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        {_row_added("OLD", "-")}
        {_row_added("NEW", "")}
        RETURN NULL;
    END $$
    """,
    f"""
    CREATE TRIGGER transactions_daily_volume_updated
    AFTER UPDATE OF status, account_validation_id, amount, created_at, company_id ON transactions_transaction
    FOR EACH ROW WHEN (
        ({COUNTS.format(row="OLD")}) IS DISTINCT FROM ({COUNTS.format(row="NEW")})
        OR (({COUNTS.format(row="OLD")})
            AND (OLD.amount, OLD.created_at, OLD.company_id)
                IS DISTINCT FROM (NEW.amount, NEW.created_at, NEW.company_id))
    ) EXECUTE FUNCTION transactions_daily_volume_updated()
    """,
    f"""
    CREATE OR REPLACE FUNCTION transactions_daily_volume_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE transactions_dailyvolume AS kept SET amount = kept.amount - gone.amount
        FROM (SELECT company_id, {EASTERN_DAY.format(row="deleted")} AS day, sum(amount) AS amount
              FROM deleted WHERE {COUNTS.format(row="deleted")} GROUP BY 1, 2) AS gone
        WHERE kept.company_id = gone.company_id AND kept.day = gone.day
          AND kept.slot = (SELECT min(slot) FROM transactions_dailyvolume
                           WHERE company_id = gone.company_id AND day = gone.day);
        RETURN NULL;
    END $$
    """,  # noqa: S608 - constants, no input
    """
    CREATE TRIGGER transactions_daily_volume_deleted AFTER DELETE ON transactions_transaction
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION transactions_daily_volume_deleted()
    """,
    """
    CREATE OR REPLACE FUNCTION transactions_daily_volume_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM transactions_dailyvolume;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER transactions_daily_volume_truncated AFTER TRUNCATE ON transactions_transaction
    FOR EACH STATEMENT EXECUTE FUNCTION transactions_daily_volume_truncated()
    """,
    f"""
    INSERT INTO transactions_dailyvolume (company_id, day, slot, amount)
    SELECT company_id, {EASTERN_DAY.format(row="t")}, 0, sum(amount) FROM transactions_transaction AS t
    WHERE {COUNTS.format(row="t")} GROUP BY 1, 2
    """,  # noqa: S608 - constants, no input
]
POSTGRES_BACKWARD = [
    f"DROP TRIGGER IF EXISTS transactions_daily_volume_{event} ON transactions_transaction"
    for event in ("truncated", "deleted", "updated", "inserted")
] + [
    f"DROP FUNCTION IF EXISTS transactions_daily_volume_{event}()"
    for event in ("truncated", "deleted", "updated", "inserted")
]


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0015_merchant_settings"),
        ("transactions", "0023_batch_debit_count"),
    ]

    operations = [
        migrations.CreateModel(
            name="DailyVolume",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("day", models.DateField(help_text="The Eastern day the transactions were created on.")),
                ("slot", models.PositiveSmallIntegerField()),
                ("amount", models.BigIntegerField()),
                (
                    "company",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="accounts.company",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("company", "day", "slot"), name="daily_volume_company_day_slot")
                ],
            },
        ),
        company_keys("transactions.DailyVolume"),
        run_sql_by_vendor({"postgresql": POSTGRES_FORWARD}, {"postgresql": POSTGRES_BACKWARD}),
    ]
