"""The service's settings plus the bench floors (bench/floor.py): never used outside the benches."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.floor"

# Connections kept for good (the service's CONN_MAX_AGE is 60 s): bench/charges.py counts the CPU of the backends
# that live through a window, and one replaced in it would hide what its requests cost.
DATABASES["default"]["CONN_MAX_AGE"] = None  # noqa: F405
