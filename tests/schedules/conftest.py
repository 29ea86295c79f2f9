"""The schedules tests use the mandates tests' payer and saved account."""

from tests.mandates.conftest import account, payer  # noqa: F401 (fixtures)
