"""NACHA files, both ways: a format library that imports no app (moov-io/ach keeps its format so). Every record
is 94 characters; each record type is a layout table of (field, width, kind) in a module of its own
(`file_header`, `batch_header`, `entry_detail`, `addenda98`, `addenda99`, `batch_control`, `file_control`) on
`fields`. The domain builds records (`Entry`, `BatchSpec`, `FileSpec`, `ReturnSpec`); `writer` renders an
origination file, `returns_writer` a return / notice-of-change file as an RDFI sends it, `reader` reads one back.

`import nacha` and `nacha.file_text(...)`: the names below are the library's public face."""

from __future__ import annotations

from nacha.addenda98 import CORRECTED_DATA_LAYOUT, NOC_ADDENDA, corrected_data, noc_addenda, parse_corrected_data
from nacha.addenda99 import RETURN_ADDENDA, return_addenda
from nacha.batch_control import BATCH_CONTROL, Totals, entry_hash
from nacha.batch_header import (
    BATCH_HEADER,
    SERVICE_CLASS_CREDITS,
    SERVICE_CLASS_DEBITS,
    SERVICE_CLASS_MIXED,
    service_class,
)
from nacha.entry_detail import (
    ACCOUNT_TYPE_BY_CODE_PREFIX,
    ENTRY_DETAIL,
    PRENOTE_TRANSACTION_CODES,
    TRANSACTION_CODES,
    Entry,
    account_type_for_code,
    entry_records,
    return_transaction_code,
)
from nacha.fields import (
    BLOCKING_FACTOR,
    PADDING_RECORD,
    RECORD_LENGTH,
    NachaFieldError,
    NachaFormatError,
    ascii_upper,
    is_ascii_digits,
    parse,
    render,
)
from nacha.file_control import FILE_CONTROL
from nacha.file_header import FILE_HEADER
from nacha.reader import ReturnedItem, ReturnFile, read_returns
from nacha.returns_writer import ReturnSpec, return_file_text
from nacha.writer import BatchSpec, FileSpec, entry_totals, file_chunks, file_record_groups, file_records, file_text

__all__ = [
    "ACCOUNT_TYPE_BY_CODE_PREFIX",
    "BATCH_CONTROL",
    "BATCH_HEADER",
    "BLOCKING_FACTOR",
    "CORRECTED_DATA_LAYOUT",
    "ENTRY_DETAIL",
    "FILE_CONTROL",
    "FILE_HEADER",
    "NOC_ADDENDA",
    "PADDING_RECORD",
    "PRENOTE_TRANSACTION_CODES",
    "RECORD_LENGTH",
    "RETURN_ADDENDA",
    "SERVICE_CLASS_CREDITS",
    "SERVICE_CLASS_DEBITS",
    "SERVICE_CLASS_MIXED",
    "TRANSACTION_CODES",
    "BatchSpec",
    "Entry",
    "FileSpec",
    "NachaFieldError",
    "NachaFormatError",
    "ReturnFile",
    "ReturnSpec",
    "ReturnedItem",
    "Totals",
    "account_type_for_code",
    "ascii_upper",
    "corrected_data",
    "entry_hash",
    "entry_records",
    "entry_totals",
    "file_chunks",
    "file_record_groups",
    "file_records",
    "file_text",
    "is_ascii_digits",
    "noc_addenda",
    "parse",
    "parse_corrected_data",
    "read_returns",
    "render",
    "return_addenda",
    "return_file_text",
    "return_transaction_code",
    "service_class",
]
