"""The ledger's tables (CONTRACT 17); 0002 keys them by company and adds the database's promises."""


import django.db.models.deletion
import django.utils.timezone
import uuid
from django.db import migrations, models



class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('accounts', '0020_ach_company_id_label'),
    ]

    operations = [
        migrations.CreateModel(
            name='JournalEntry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('uuid', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ('type', models.CharField(choices=[('charge', 'Charge'), ('settlement', 'Settlement'), ('funds_available', 'Funds Available'), ('return', 'Return'), ('refund', 'Refund'), ('reversal', 'Reversal'), ('credit', 'Credit'), ('payout', 'Payout'), ('payout_return', 'Payout Return'), ('top_up', 'Top Up'), ('reserve_hold', 'Reserve Hold'), ('reserve_release', 'Reserve Release'), ('adjustment', 'Adjustment')], max_length=16)),
                ('amount', models.BigIntegerField(help_text='Cents moved (each leg moves this much).')),
                ('transaction_uuid', models.UUIDField(blank=True, null=True)),
                ('payout_uuid', models.UUIDField(blank=True, null=True)),
                ('description', models.CharField(blank=True, max_length=255)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('effective_date', models.DateField(blank=True, null=True)),
                ('company', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='accounts.company')),
            ],
            options={
                'verbose_name_plural': 'journal entries',
            },
        ),
        migrations.CreateModel(
            name='Posting',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('uuid', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ('account', models.CharField(choices=[('incoming', 'Incoming'), ('pending', 'Pending'), ('available', 'Available'), ('reserved', 'Reserved'), ('outgoing', 'Outgoing'), ('bank', 'Bank'), ('clearing', 'Clearing'), ('fees', 'Fees')], max_length=10)),
                ('amount', models.BigIntegerField(help_text='Signed cents, credit-positive.')),
                ('currency', models.CharField(default='USD', max_length=3)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('company', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='accounts.company')),
                ('entry', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='postings', to='ledger.journalentry')),
            ],
        ),
        migrations.CreateModel(
            name='BalanceCheckpoint',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('account', models.CharField(choices=[('incoming', 'Incoming'), ('pending', 'Pending'), ('available', 'Available'), ('reserved', 'Reserved'), ('outgoing', 'Outgoing'), ('bank', 'Bank'), ('clearing', 'Clearing'), ('fees', 'Fees')], max_length=10)),
                ('currency', models.CharField(default='USD', max_length=3)),
                ('through_id', models.BigIntegerField()),
                ('as_of', models.DateTimeField()),
                ('balance', models.BigIntegerField()),
                ('company', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='accounts.company')),
            ],
            options={
                'indexes': [models.Index(fields=['company', 'as_of'], name='ledger_checkpoint_company_at')],
                'constraints': [models.UniqueConstraint(fields=('company', 'through_id', 'as_of', 'account', 'currency'), name='ledger_checkpoint_once')],
            },
        ),
        migrations.AddIndex(
            model_name='journalentry',
            index=models.Index(fields=['company', 'transaction_uuid'], name='ledger_entry_transaction'),
        ),
        migrations.AddIndex(
            model_name='posting',
            index=models.Index(fields=['company', 'id'], name='ledger_posting_company_id'),
        ),
        migrations.AddIndex(
            model_name='posting',
            index=models.Index(fields=['company', 'created_at'], name='ledger_posting_company_at'),
        ),
    ]
