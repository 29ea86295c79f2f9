"""COPY ... TO STDOUT on PostgreSQL read in large pieces: psycopg starts the COPY, and the rows are read at the libpq
level, where a row costs a third of what psycopg's Copy iteration does (one generator and one wait per row)."""

from __future__ import annotations

import selectors
from collections.abc import Iterator, Sequence
from typing import Any

from psycopg import errors, pq

_COPY_ROWS_END = -1  # get_copy_data: the server ended the COPY (well or with an error: get_result tells which)
_WOULD_BLOCK = 0  # get_copy_data(1): no whole row received yet


def copy_out_pieces(
    cursor: Any, statement: str, params: Sequence[Any], *, piece_bytes: int, first: bytes = b""
) -> Iterator[bytes]:
    """The output of `statement` (a COPY ... TO STDOUT taking `params`, bound by psycopg) on a Django `cursor`,
    `first` then its rows, joined in pieces of at least `piece_bytes` (the last may be shorter).

    psycopg's Copy starts the COPY and, when the reader stops early (a client gone, a closed generator), cancels it
    and reads the rest, leaving the connection usable; the rows and the end of the COPY are read here. Database
    errors, mid-stream ones included (statement_timeout, a cancel), are raised as Django's, which marks the
    connection for the end-of-request check."""
    psycopg_connection = cursor.cursor.connection
    with cursor.db.wrap_database_errors, cursor.cursor.copy(statement, params):
        pgconn = psycopg_connection.pgconn
        rest = yield from _rows_joined(pgconn, piece_bytes, first)
        _copy_end(pgconn, psycopg_connection.info.encoding)
    if rest:
        yield rest


def _rows_joined(pgconn: Any, piece_bytes: int, first: bytes) -> Iterator[bytes]:
    """Yield the COPY's rows in pieces until its end has been read; return what is left of them (may be b"")."""
    get_copy_data, consume_input = pgconn.get_copy_data, pgconn.consume_input
    pieces: list[Any] = [first] if first else []
    append, size = pieces.append, len(first)
    with _Readable(pgconn) as readable:
        while True:
            nbytes, row = get_copy_data(1)
            if nbytes > 0:
                append(row)
                size += nbytes
                if size >= piece_bytes:
                    yield b"".join(pieces)
                    pieces.clear()
                    size = 0
            elif nbytes == _WOULD_BLOCK:
                readable.wait()
                consume_input()
            else:
                break
    if nbytes != _COPY_ROWS_END:
        raise errors.OperationalError(f"reading the COPY failed: {_message(pgconn)}")
    return b"".join(pieces)


def _copy_end(pgconn: Any, encoding: str) -> None:
    """Read the COPY's results to the end (the connection is idle again), raising its error if it failed."""
    failure = None
    with _Readable(pgconn) as readable:
        while True:
            while pgconn.is_busy():
                readable.wait()
                pgconn.consume_input()
            if (result := pgconn.get_result()) is None:
                break
            if result.status != pq.ExecStatus.COMMAND_OK and failure is None:
                failure = errors.error_from_result(result, encoding=encoding)
    if failure is not None:
        raise failure


class _Readable:
    """Waits until the connection's socket has data. The first wait only tries the socket (libpq reads what has
    come), as data is usually there already; a selector's system call is paid only when a read found nothing."""

    def __init__(self, pgconn: Any) -> None:
        self.pgconn = pgconn
        self.selector: selectors.BaseSelector | None = None
        self.tried = False

    def __enter__(self) -> _Readable:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.selector is not None:
            self.selector.close()

    def wait(self) -> None:
        if not self.tried:
            self.tried = True
            return
        if self.selector is None:
            self.selector = selectors.DefaultSelector()
            self.selector.register(self.pgconn.socket, selectors.EVENT_READ)
        self.selector.select()
        self.tried = False


def _message(pgconn: Any) -> str:
    return pgconn.error_message.decode("utf-8", "replace").strip() or "connection lost"
