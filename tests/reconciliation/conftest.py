"""The bank connection's fixtures (a test bank per module on loopback, the settings pointing at it) for the tests
that reconcile what it sends."""

from __future__ import annotations

from tests.bank.conftest import bank, running_bank  # noqa: F401 - fixtures
