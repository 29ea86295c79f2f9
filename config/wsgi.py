"""WSGI entry point for gunicorn."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["VAULT_WEB_PROCESS"] = "1"  # settings: web requests get a statement timeout (WEB_STATEMENT_TIMEOUT_MS)
application = get_wsgi_application()
# What loading made (Django, the apps, their modules) lives as long as the worker: frozen, the collector's full
# passes stop walking it on every request that allocates a wide page.
gc.freeze()
