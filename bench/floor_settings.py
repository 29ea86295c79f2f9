"""The service's settings plus the bench floors (bench/floor.py): never used outside the benches."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.floor"
