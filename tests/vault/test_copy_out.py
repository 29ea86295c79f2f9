"""vault.copy_out: a COPY's output read at the libpq level is exactly what psycopg's Copy reads, its parameters are
bound, and a COPY that fails after it started raises the database's error and leaves the connection usable
(PostgreSQL only)."""

from __future__ import annotations

import pytest
from django.db import DataError, OperationalError, connection, transaction

from vault.copy_out import copy_out_pieces

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY is PostgreSQL's"),
]

ROWS = "COPY (SELECT g, %s || g, NULL, 'a \"q\", b' FROM generate_series(1, %s) g) TO STDOUT WITH (FORMAT csv)"


def _psycopg_copy(statement: str, params: list) -> bytes:
    with connection.cursor() as cursor, cursor.cursor.copy(statement, params) as copy:
        return b"".join(bytes(row) for row in copy)


def _read(statement: str, params: list, **options) -> list[bytes]:
    with connection.cursor() as cursor:
        return list(copy_out_pieces(cursor, statement, params, **options))


@pytest.mark.parametrize("piece_bytes", [1, 100, 1 << 20])
def test_the_pieces_are_the_first_bytes_then_exactly_the_rows_psycopg_reads(piece_bytes):
    params = ["it's; DROP TABLE x --", 3000]
    pieces = _read(ROWS, params, piece_bytes=piece_bytes, first=b"head\n")
    assert b"".join(pieces) == b"head\n" + _psycopg_copy(ROWS, params)
    assert all(len(piece) >= piece_bytes for piece in pieces[:-1])
    assert b"it's; DROP TABLE x --2999," in b"".join(pieces)


def test_a_copy_of_no_rows_is_the_first_bytes_alone():
    assert _read(ROWS, ["x", 0], piece_bytes=10, first=b"head\n") == [b"head\n"]


def _still_usable() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_an_error_after_rows_were_sent_is_raised_and_the_connection_is_usable():
    failing = "COPY (SELECT g, 1 / (%s - g) FROM generate_series(1, 5000) g) TO STDOUT WITH (FORMAT csv)"
    read = []
    with pytest.raises(DataError, match="division by zero"), transaction.atomic():
        with connection.cursor() as cursor:
            read.extend(copy_out_pieces(cursor, failing, [4000], piece_bytes=1))
    assert len(read) > 100  # rows came before the error
    _still_usable()


def test_a_statement_timeout_mid_stream_is_raised_and_the_connection_is_usable():
    slow = "COPY (SELECT g, pg_sleep(0.01) FROM generate_series(1, %s) g) TO STDOUT WITH (FORMAT csv)"
    with pytest.raises(OperationalError, match="statement timeout"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 200")
            list(copy_out_pieces(cursor, slow, [1000], piece_bytes=1))
    _still_usable()


def test_a_reader_that_stops_early_cancels_the_copy_and_the_connection_is_usable():
    def export():  # as reporting.stream.report_copy_stream: the COPY in a transaction of its own
        with transaction.atomic(), connection.cursor() as cursor:
            yield from copy_out_pieces(cursor, ROWS, ["x", 10_000_000], piece_bytes=1000)

    pieces = export()
    assert next(pieces)
    pieces.close()
    _still_usable()
