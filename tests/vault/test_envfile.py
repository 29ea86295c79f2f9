"""vault/envfile.py reads /etc/vault/env as systemd's EnvironmentFile= does (systemd.exec(5), "EnvironmentFile="):
the table is systemd's reading of each line (newcomer review 2026-12-07 O2)."""

from __future__ import annotations

import pytest

from vault.envfile import env_file_parse

HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOnlyATestKey"


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("DEBUG=0\n", {"DEBUG": "0"}),
        (f"BANK_SFTP_HOST_KEY={HOST_KEY}\n", {"BANK_SFTP_HOST_KEY": HOST_KEY}),  # the rest of the line, spaces too
        (f'BANK_SFTP_HOST_KEY="{HOST_KEY}"\n', {"BANK_SFTP_HOST_KEY": HOST_KEY}),  # quotes taken off
        (f"BANK_SFTP_HOST_KEY='{HOST_KEY}'\n", {"BANK_SFTP_HOST_KEY": HOST_KEY}),
        ("  A = spaced out  \n", {"A": "spaced out"}),  # spaces around '=' and at the ends dropped
        ("# a comment\n; another\n\nA=1\n", {"A": "1"}),
        ("A=1\nA=2\n", {"A": "2"}),  # the last one wins
        ("A=$HOME `id` $(id)\n", {"A": "$HOME `id` $(id)"}),  # nothing evaluated
        ('A="say \\"hi\\" \\\\ \\n"\n', {"A": 'say "hi" \\ \\n'}),  # escapes in "...": only \" \\ \\` \\$
        ("A='it''s'\n", {"A": "its"}),  # quoted parts join
        ("A=one \\\ntwo\nB=3\n", {"A": "one two", "B": "3"}),  # a backslash at the end continues the line
        ("A=no newline at the end", {"A": "no newline at the end"}),
        ("A=\n", {"A": ""}),
        ("A=x=y\n", {"A": "x=y"}),
    ],
)
def test_each_line_is_read_as_systemd_reads_it(text, read):
    assert env_file_parse(text) == read


@pytest.mark.parametrize("line", ["export DEBUG=0", "not an assignment", "1ABC=x", "=x"])
def test_a_line_that_is_no_assignment_is_skipped_with_a_warning_as_systemd_skips_it(line):
    skipped: list[str] = []
    assert env_file_parse(f"{line}\nA=1\n", warn=skipped.append) == {"A": "1"}
    assert skipped == [line]
