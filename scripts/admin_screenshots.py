"""Screenshots of the main back-office pages into docs/img/: a throwaway SQLite service with the demo data, the
demo login (a Support and Risk staff user with DEBUG), headless Chromium. Run from the project root:
    .venv/bin/python scripts/admin_screenshots.py
Needs the `chromium` package. Nothing outside a temporary folder is written except the PNG files."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
EMAIL, PASSWORD = "demo@example.com", "vault-demo-password"


def _env(var: Path) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "DEBUG": "1",
        "VAR_DIR": str(var),
        "DATABASE_URL": f"sqlite:///{var}/db.sqlite3",
    }


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)  # noqa: S603
    if done.returncode:
        raise SystemExit(done.stderr)
    return done.stdout


def _serve(env: dict[str, str], listener: socket.socket) -> subprocess.Popen:
    command = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--bind", f"fd://{listener.fileno()}"]
    return subprocess.Popen(command, cwd=ROOT, env={**env, "WEB_CONCURRENCY": "1"}, pass_fds=[listener.fileno()])  # noqa: S603


def _logged_in(base: str) -> httpx.Client:
    client = httpx.Client(base_url=base, headers={"Host": "localhost"}, follow_redirects=True, timeout=60)
    for _ in range(240):
        try:
            page = client.get("/admin/login/")
            break
        except httpx.TransportError:
            time.sleep(0.5)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    client.post(
        "/admin/login/?next=/admin/", data={"username": EMAIL, "password": PASSWORD, "csrfmiddlewaretoken": token}
    )
    return client


def _shot(target: str, name: str, height: int = 900) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    subprocess.run(  # noqa: S603
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--window-size=1400,{height}",
            "--virtual-time-budget=8000",
            f"--screenshot={OUT / name}",
            target,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


def _html_shot(client: httpx.Client, base: str, html: str, name: str, work: Path) -> None:
    """An admin page fetched with the staff session, shown from a file whose <base> loads its CSS from the server."""
    page = work / f"{name}.html"
    page.write_text(html.replace("<head>", f'<head><base href="{base}/">', 1))
    _shot(page.as_uri(), name)


def _first_id(client: httpx.Client, listing: str, pattern: str = r'name="_selected_action" value="(\d+)"') -> str:
    return re.search(pattern, client.get(listing).text).group(1)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="vault-shots-"))
    env = _env(work)
    _manage(env, "migrate", "--noinput")
    _manage(env, "bootstrap_demo")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.set_inheritable(True)
    base = f"http://127.0.0.1:{listener.getsockname()[1]}"
    server = _serve(env, listener)
    try:
        client = _logged_in(base)
        pages = {
            "admin-index.png": "/admin/",
            "admin-transactions.png": "/admin/transactions/transaction/",
            "admin-companies.png": "/admin/accounts/company/",
        }
        for name, path in pages.items():
            _html_shot(client, base, client.get(path).text, name, work)
        txn = _first_id(client, "/admin/transactions/transaction/")
        _html_shot(
            client,
            base,
            client.get(f"/admin/transactions/transaction/{txn}/change/").text,
            "admin-transaction.png",
            work,
        )
        returned = _first_id(client, "/admin/transactions/transaction/?status__exact=Returned")
        _html_shot(
            client,
            base,
            client.get(f"/admin/transactions/transaction/{returned}/change/").text,
            "admin-transaction-returned.png",
            work,
        )
        token = re.search(
            r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get("/admin/transactions/transaction/").text
        ).group(1)
        confirm = client.post(
            "/admin/transactions/transaction/",
            data={"action": "reject_transactions", "_selected_action": [txn], "csrfmiddlewaretoken": token},
        )
        _html_shot(client, base, confirm.text, "admin-confirm-reject.png", work)
        _html_shot(
            client,
            base,
            client.get("/admin/transactions/transaction/", params={"q": "6789"}).text,
            "admin-search-last-four.png",
            work,
        )
        _shot(f"{base}/api/redoc/", "redoc.png")
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
