"""Mandates (CONTRACT 14): a merchant-owned table, so its foreign keys to the customer and the saved method are made
without Django's REFERENCES (id) and keyed by company_keys (README, "worth knowing"). On PostgreSQL a trigger refuses
to delete a mandate before its retainUntil (an active one has none yet: it is kept). SQLite has no such trigger: the
service never deletes a mandate, and Django's test flush deletes every row there (PostgreSQL's TRUNCATE fires no
row trigger)."""

import django.db.models.deletion
import django.utils.timezone
import uuid
import vault.fields
from vault.company_keys import company_keys
from django.db import migrations, models


def mandate(*, db_constraint: bool) -> migrations.CreateModel:
    return migrations.CreateModel(
        name='Mandate',
        fields=[
            ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
            ('uuid', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
            ('status', models.CharField(choices=[('active', 'Active'), ('revoked', 'Revoked')], default='active', max_length=8)),
            ('sec_code', models.CharField(choices=[('PPD', 'PPD'), ('WEB', 'WEB'), ('TEL', 'TEL'), ('CCD', 'CCD')], max_length=3)),
            ('type', models.CharField(choices=[('single', 'Single'), ('recurring', 'Recurring')], max_length=9)),
            ('channel', models.CharField(choices=[('online', 'Online'), ('paper', 'Paper'), ('phone', 'Phone')], max_length=6)),
            ('accepted_at', models.DateTimeField()),
            ('text', models.TextField(help_text='The authorization wording the payer accepted, as sent.')),
            ('text_sha256', models.CharField(editable=False, max_length=64)),
            ('max_amount', models.BigIntegerField(blank=True, help_text='Cents; a debit above it is refused.', null=True)),
            ('frequency', models.CharField(blank=True, choices=[('weekly', 'Weekly'), ('biweekly', 'Biweekly'), ('monthly', 'Monthly'), ('irregular', 'Irregular')], max_length=9)),
            ('ip_address', models.GenericIPAddressField(blank=True, null=True)),
            ('user_agent', models.CharField(blank=True, max_length=1000)),
            ('evidence', vault.fields.EncryptedTextField(blank=True, editable=False, null=True)),
            ('evidence_sha256', models.CharField(blank=True, editable=False, max_length=64)),
            ('evidence_bytes', models.PositiveIntegerField(blank=True, editable=False, null=True)),
            ('used_at', models.DateTimeField(blank=True, editable=False, null=True)),
            ('revoked_at', models.DateTimeField(blank=True, editable=False, null=True)),
            ('revoked_reason', models.CharField(blank=True, editable=False, max_length=255)),
            ('revoked_by', models.CharField(blank=True, editable=False, max_length=64)),
            ('retain_until', models.DateTimeField(blank=True, editable=False, null=True)),
            ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
            ('company', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='mandates', to='accounts.company')),
            ('customer', models.ForeignKey(db_constraint=db_constraint, db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='mandates', to='customers.customer')),
            ('payment_method', models.ForeignKey(db_constraint=db_constraint, on_delete=django.db.models.deletion.PROTECT, related_name='mandates', to='payments.paymentmethod')),
        ],
        options={
            'indexes': [models.Index(fields=['company', 'customer', 'created_at'], name='mandate_company_customer')],
            'constraints': [models.CheckConstraint(condition=models.Q(('sec_code__in', ('PPD', 'WEB', 'TEL', 'CCD'))), name='mandate_sec_code_known'), models.CheckConstraint(condition=models.Q(models.Q(('retain_until__isnull', True), ('revoked_at__isnull', True), ('status', 'active')), models.Q(('retain_until__isnull', False), ('revoked_at__isnull', False), ('status', 'revoked'), models.Q(('revoked_reason', ''), _negated=True)), _connector='OR'), name='mandate_revocation_complete'), models.CheckConstraint(condition=models.Q(models.Q(('channel', 'online'), _negated=True), models.Q(('ip_address__isnull', False), models.Q(('user_agent', ''), _negated=True)), _connector='OR'), name='mandate_online_evidence'), models.CheckConstraint(condition=models.Q(('type', 'single'), ('used_at__isnull', True), _connector='OR'), name='mandate_used_if_single'), models.CheckConstraint(condition=models.Q(('max_amount__isnull', True), ('max_amount__gt', 0), _connector='OR'), name='mandate_max_amount_positive')],
        },
    )

RETAINED = """
CREATE FUNCTION mandate_retained() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.retain_until IS NULL OR OLD.retain_until > now() THEN
        RAISE EXCEPTION 'mandate % is kept until %', OLD.uuid, coalesce(OLD.retain_until::text, 'two years after it ends')
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN OLD;
END $$;
CREATE TRIGGER mandate_retained BEFORE DELETE ON mandates_mandate FOR EACH ROW EXECUTE FUNCTION mandate_retained();
"""
NOT_RETAINED = "DROP TRIGGER mandate_retained ON mandates_mandate; DROP FUNCTION mandate_retained();"


def retained(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(RETAINED, params=None)


def not_retained(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(NOT_RETAINED, params=None)


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('accounts', '0018_mandate_policy'),
        ('customers', '0001_initial'),
        ('payments', '0004_payment_method_account_number_hash'),
        ('transactions', '0012_company_keys'),  # the customer's and the method's keys are (id, company_id)
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[mandate(db_constraint=True)], database_operations=[mandate(db_constraint=False)]
        ),
        company_keys("mandates.Mandate"),
        migrations.RunPython(retained, not_retained),
    ]
