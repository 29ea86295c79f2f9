"""python manage.py bank_simulator --root DIR --port P [--password-file F] [--fault F] [--client-keys-file F]
[--statement bai2|camt053|none] [--posting file|batch] [--statement-noise]: an SFTP
server that plays the bank (bank/simulator.py) for tests, the sandbox and demos. Prints one JSON line when
ready, then serves until stopped."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bank.simulator import FAULTS, Bank, client_keys_read, host_key_load, ready_line, serve
from bank.statements import FORMATS, POSTINGS


class Command(BaseCommand):
    help = "Serve SFTP as a test ODFI: acknowledge our files, return/NOC the magic 000555NN/000666NN accounts."

    def add_arguments(self, parser):
        parser.add_argument("--root", required=True, help="its folder: to-bank/ and from-bank/ are made inside")
        parser.add_argument("--port", type=int, default=0, help="loopback port (0: any free one; printed)")
        parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
        parser.add_argument(
            "--password-file",
            help="a file whose first line is the password any user name logs in with (else the environment "
            "variable BANK_SIMULATOR_PASSWORD)",
        )
        parser.add_argument("--password", help="the password on the command line (seen in the process list: tests)")
        parser.add_argument("--fault", choices=FAULTS, help="make the first upload fail this way")
        parser.add_argument(
            "--statement", choices=FORMATS, default="bai2", help="the statement it writes for each file it takes"
        )
        parser.add_argument("--posting", choices=POSTINGS, default="file", help="a settlement line per file or batch")
        parser.add_argument(
            "--statement-noise",
            action="store_true",
            help="add fees, interest and other businesses' lines, and split one settlement over two lines",
        )
        parser.add_argument(
            "--settlement-account", default="9876543210", help="the account number its statements are of"
        )
        parser.add_argument("--slow-seconds", type=float, default=1.0, help="the delay of each answer under slow")
        parser.add_argument("--host-key-file", help="keep the server's key here (made when missing), so it stays")
        parser.add_argument(
            "--client-keys-file",
            help="public keys (OpenSSH lines, as in authorized_keys) any user may log in with, besides the password",
        )

    def handle(self, *args, **options):
        password = _password(options)
        if not 0 <= options["port"] <= 65535:
            raise CommandError("--port must be 0 to 65535")
        root = Path(options["root"])
        try:
            bank = Bank(
                root=root,
                password=password,
                slow_seconds=options["slow_seconds"],
                statement=options["statement"],
                posting=options["posting"],
                statement_noise=options["statement_noise"],
                settlement_account=options["settlement_account"],
            )
            if options["client_keys_file"]:
                bank.client_keys = client_keys_read(Path(options["client_keys_file"]))
            bank.arm(options["fault"])
            key = host_key_load(Path(options["host_key_file"]) if options["host_key_file"] else None)
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        try:
            asyncio.run(self._serve(bank, options["host"], options["port"], key))
        except KeyboardInterrupt:
            pass
        except OSError as exc:
            raise CommandError(f"cannot listen on {options['host']}:{options['port']}: {exc.strerror}") from None

    async def _serve(self, bank: Bank, host: str, port: int, key) -> None:
        acceptor = await serve(bank, host=host, port=port, key=key)
        self.stdout.write(json.dumps(ready_line(acceptor, key)))
        self.stdout.flush()
        await acceptor.wait_closed()


def _password(options: dict) -> str:
    """From --password-file, else BANK_SIMULATOR_PASSWORD, else --password (security review 2026-12-07 L6)."""
    if options["password_file"]:
        try:
            lines = Path(options["password_file"]).read_text().splitlines()
        except OSError as exc:
            raise CommandError(f"--password-file: cannot read it ({exc.strerror})") from None
        password = lines[0].strip() if lines else ""
    else:
        password = os.environ.get("BANK_SIMULATOR_PASSWORD") or options["password"] or ""
    if not password:
        raise CommandError("no password: give --password-file F or set BANK_SIMULATOR_PASSWORD")
    return password
