"""/etc/vault/env read as systemd's EnvironmentFile= reads it, so a command run by hand (deploy/manage.sh) sees what
the units see: `KEY=value` lines, `#` and `;` comments, spaces around `=` and at the ends of a value dropped, the rest
of the line the value, spaces included (`BANK_SFTP_HOST_KEY=ssh-ed25519 AAAA...`), a value in '...' taken as it is
and one in "..." with backslash escapes, a backslash at the end of a line continuing it. Nothing is evaluated by a
shell: `$NAME` and backquotes stay as they are. A line that is no assignment (an `export KEY=...`) is skipped with a
warning, as systemd skips it (newcomer review 2026-12-07 O2: manage.sh sourced the file, and a host key's space made
the shell run the key as a command).

`python -m vault.envfile FILE manage.py ARG...` runs manage.py with the file's variables added to the environment."""

from __future__ import annotations

import os
import re
import runpy
import sys
from pathlib import Path

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# In "...", systemd takes a backslash as an escape only before these; elsewhere it stays.
DOUBLE_QUOTE_ESCAPES = '"\\`$\n'


def _value(text: str, start: int) -> tuple[str, int]:
    """The value that begins at text[start] (after `=` and its spaces), and where its line ends."""
    out: list[str] = []
    trailing_spaces = 0  # unescaped spaces at the end of an unquoted part: dropped at the end of the line
    i = start
    while i < len(text) and text[i] != "\n":
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":  # a backslash at the end of a line joins the next one
                out.append(text[i + 1])
            i, trailing_spaces = i + 2, 0
        elif char == "'":
            close = text.find("'", i + 1)
            close = len(text) if close < 0 else close  # unterminated: to the end of the file, as in systemd
            out.append(text[i + 1 : close])
            i, trailing_spaces = close + 1, 0
        elif char == '"':
            i = _double_quoted(text, i + 1, out)
            trailing_spaces = 0
        else:
            out.append(char)
            trailing_spaces = trailing_spaces + 1 if char in " \t" else 0
            i += 1
    value = "".join(out)
    return (value[: len(value) - trailing_spaces] if trailing_spaces else value), i


def _double_quoted(text: str, i: int, out: list[str]) -> int:
    """Appends the "..." part that starts at text[i] (after its quote); returns where it ends (after its quote)."""
    while i < len(text) and text[i] != '"':
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in DOUBLE_QUOTE_ESCAPES:
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return i + 1


def env_file_parse(text: str, *, warn=None) -> dict[str, str]:
    """The assignments of an environment file, in systemd's reading; `warn(line)` hears of each line skipped."""
    found: dict[str, str] = {}
    i = 0
    while i < len(text):
        end = text.find("\n", i)
        end = len(text) if end < 0 else end
        line = text[i:end].strip()
        if not line or line[0] in "#;":
            i = end + 1
            continue
        key, equals, _ = line.partition("=")
        key = key.strip()
        if not equals or not NAME.match(key):
            if warn is not None:
                warn(line)
            i = end + 1
            continue
        start = text.index("=", i) + 1
        while start < len(text) and text[start] in " \t":
            start += 1
        found[key], stop = _value(text, start)
        i = stop + 1
    return found


def env_file_read(path: str | Path) -> dict[str, str]:
    def warn(line: str) -> None:
        print(f"{path}: not KEY=value, skipped as systemd skips it: {line.split('=', 1)[0][:40]}...", file=sys.stderr)

    return env_file_parse(Path(path).read_text(), warn=warn)


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        sys.exit("usage: python -m vault.envfile ENV_FILE SCRIPT [ARG...]")
    env_file, script, *args = argv
    try:
        os.environ.update(env_file_read(env_file))
    except OSError as exc:
        sys.exit(f"cannot read the environment file {env_file}: {exc.strerror}")
    sys.argv = [script, *args]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
