"""N14 (security review 2026-11-25): an over-long request line or header is answered in the JSON error envelope
(414 `uri_too_long`, 431 `header_too_large`), not gunicorn's HTML 400; gunicorn takes request lines up to its own
maximum (8190 bytes), so an 8 KB reporting query reaches the service. A real gunicorn on loopback, started with the
shipped gunicorn.conf.py, for each worker class it may run (sync, gthread)."""

from __future__ import annotations

import json
import socket

import pytest

from tests.test_logs import Server, server_env  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db(transaction=True)


def _raw(base: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(request)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def _get(path: str, extra: str = "") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}Connection: close\r\n\r\n".encode()


@pytest.fixture(params=["1", "2"], ids=["sync", "gthread"])
def server(request, tmp_path, server_env):  # noqa: F811 - the fixture imported above
    env = {**server_env, "GUNICORN_THREADS": request.param}
    running = Server(env, tmp_path / "out.log", tmp_path / "err.log")
    yield running
    running.stop()


def _envelope(status: int, headers: dict[str, str], body: bytes, code: str) -> None:
    assert headers["content-type"] == "application/json"
    parsed = json.loads(body)
    assert parsed["status"] == "error" and parsed["data"] is None
    assert parsed["errors"][0]["code"] == code, parsed


def test_a_request_line_past_gunicorns_limit_is_414_in_the_envelope(server):
    status, headers, body = _raw(server.base, _get("/reporting/transactions?name=" + "a" * 9000))
    assert status == 414, body[:500]
    _envelope(status, headers, body, "uri_too_long")


def test_a_header_past_the_limit_is_431_in_the_envelope(server):
    status, headers, body = _raw(server.base, _get("/customers", "X-Padding: " + "b" * 9000 + "\r\n"))
    assert status == 431
    _envelope(status, headers, body, "header_too_large")


def test_too_many_headers_is_431_in_the_envelope(server):
    many = "".join(f"X-H{n}: v\r\n" for n in range(150))
    status, headers, body = _raw(server.base, _get("/customers", many))
    assert status == 431
    _envelope(status, headers, body, "header_too_large")


def test_an_8_kb_reporting_query_reaches_the_service(server):
    """The schema conformance check's case: gunicorn's old 4094-byte default refused it in HTML."""
    path = "/reporting/transactions?name=" + "a" * (8 * 1024 - 60)
    status, headers, body = _raw(server.base, _get(path))
    assert status == 401  # the service answered (no credentials), not gunicorn
    _envelope(status, headers, body, "not_authenticated")
