"""A charge's cost with 0 and with 16 webhook endpoints subscribed to it (N5): p50 and p95 of `PUT /transactions`
served in-process (Django's test client, no network), on its own PostgreSQL database (dropped and recreated).

    .venv/bin/python bench/fanout.py --database-url postgres://postgres@127.0.0.1:5432/bench_fanout
    .venv/bin/python bench/fanout.py --project /work/main ...   # the same measure on another checkout

Prints one line per endpoint count."""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
from pathlib import Path

import psycopg
from cryptography.fernet import Fernet


def recreate_database(url: str) -> None:
    server, name = url.rsplit("/", 1)
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(project: Path, url: str) -> None:
    os.environ.update(
        DEBUG="0",
        DATABASE_URL=url,
        SECRET_KEY=secrets.token_urlsafe(48),
        FIELD_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        BLIND_INDEX_KEY=secrets.token_urlsafe(48),
        JWT_SIGNING_KEY=secrets.token_urlsafe(48),
        IDEMPOTENCY_HASH_KEY=secrets.token_urlsafe(48),
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="0",
        LOG_LEVEL="ERROR",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    sys.path.insert(0, str(project))
    os.chdir(project)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def charge_times(client, count: int) -> list[float]:
    body = {
        "method": "ACH",
        "type": "Credit",
        "amount": 100,
        "standardEntryClassCode": "PPD",
        "paymentDetails": {
            "name": "Bench Payee",
            "accountType": "Checking",
            "accountNumber": "123456789",
            "routingNumber": "021000021",
        },
    }
    times = []
    for _ in range(count):
        started = time.perf_counter()
        response = client.put("/transactions", body, format="json")
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 201, response.content
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/bench_fanout")
    parser.add_argument("--project", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--charges", type=int, default=300, help="measured charges per endpoint count")
    parser.add_argument("--endpoints", type=int, default=16)
    args = parser.parse_args()
    recreate_database(args.database_url)
    setup_django(Path(args.project), args.database_url)

    from rest_framework.test import APIClient

    from accounts.actions import ALL_ACTIONS, LIVE_API_KEY_GROUP
    from accounts.models import ActionGroup
    from accounts.services import api_key_create, company_create
    from events.services import endpoint_create

    ActionGroup.objects.get_or_create(name=LIVE_API_KEY_GROUP, defaults={"actions": list(ALL_ACTIONS)})
    company = company_create(name="Bench fan-out")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=api_key_create(company=company).authorization)
    charge_times(client, 30)  # warm-up
    for endpoints in (0, args.endpoints):
        for n in range(endpoints):
            endpoint_create(company=company, url=f"https://93.184.216.34/bench/{n}", event_types=["transaction.*"])
        times = sorted(charge_times(client, args.charges))
        p50, p95 = statistics.median(times), times[int(len(times) * 0.95)]
        print(f"charge with {endpoints:>2} endpoints: p50 {p50:.1f} ms, p95 {p95:.1f} ms ({args.charges} charges)")


if __name__ == "__main__":
    main()
