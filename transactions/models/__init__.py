"""The transactions app's models, one module a subject, all re-exported here (`from transactions.models import
Transaction`): the app label stays `transactions`, so moving a model between these modules needs no migration.

- `ach.py`: the bank's files (origination files, batches, settlements, imported return files)
- `validation.py`: account validations (prenotes, micro-deposits)
- `transaction.py`: the transaction, its hold, exception and event trail
- `returns.py`: returns, dishonored returns, parked return items, notices of change
- `retries.py`: retry policies and the attempts they schedule (CONTRACT 15)
- `risk.py`: account blocks and the return-rate program (policies, alerts, debit holds, actions, reviews)
"""

from transactions.models.ach import Batch, IngestionFile, IngestionPart, OriginationFile, Settlement, TraceSequence
from transactions.models.retries import RetryAttempt, RetryPolicy, RetrySchedule
from transactions.models.returns import ChangeNotice, DishonoredReturn, ParkedReturnItem, TransactionReturn
from transactions.models.risk import (
    AccountBlock,
    DailyVolume,
    DebitHold,
    ReturnPolicy,
    RiskAction,
    RiskAlert,
    RiskReview,
)
from transactions.models.transaction import (
    AWAITING_LATE_SETTLEMENT,
    MICRO_ENTRY,
    NOT_SEEDED,
    Finality,
    Method,
    Purpose,
    Status,
    Transaction,
    TransactionEvent,
    TransactionException,
    TransactionHold,
    TransactionType,
)
from transactions.models.validation import AccountValidation

__all__ = [
    "AWAITING_LATE_SETTLEMENT",
    "MICRO_ENTRY",
    "NOT_SEEDED",
    "AccountBlock",
    "AccountValidation",
    "Batch",
    "DailyVolume",
    "ChangeNotice",
    "DebitHold",
    "DishonoredReturn",
    "Finality",
    "IngestionFile",
    "IngestionPart",
    "Method",
    "OriginationFile",
    "ParkedReturnItem",
    "Purpose",
    "RetryAttempt",
    "RetryPolicy",
    "RetrySchedule",
    "ReturnPolicy",
    "RiskAction",
    "RiskAlert",
    "RiskReview",
    "Settlement",
    "Status",
    "TraceSequence",
    "Transaction",
    "TransactionEvent",
    "TransactionException",
    "TransactionHold",
    "TransactionReturn",
    "TransactionType",
]
