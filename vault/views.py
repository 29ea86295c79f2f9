"""Django-level 404/500 handlers that answer in the error envelope, never with a page or a trace; the guides and the
ReDoc bundle the served API documents use."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse
from django.http.request import split_domain_port

from vault.envelope import error_body, success_body
from vault.error_codes import ErrorCode


def error_response(status: int, code: str, message: str) -> HttpResponse:
    body = error_body(message, [{"field": None, "code": code, "message": message}])
    return HttpResponse(json.dumps(body), status=status, content_type="application/json")


def not_found(request, exception=None):
    return error_response(404, ErrorCode.NOT_FOUND, "Not found.")


def server_error(request):
    return error_response(500, ErrorCode.SERVER_ERROR, "Internal server error.")


def bad_request(request, exception=None):
    if isinstance(exception, DisallowedHost):  # newcomer review 2026-12-07 O1: only the log said why
        domain, _ = split_domain_port(request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME", ""))
        return error_response(
            400,
            ErrorCode.HOST_NOT_ALLOWED,
            f"The host {domain[:100]!r} is not one this service answers (its ALLOWED_HOSTS setting does not list it).",
        )
    return error_response(400, ErrorCode.BAD_REQUEST, "Bad request.")


def permission_denied(request, exception=None):
    return error_response(403, ErrorCode.FORBIDDEN, "You do not have permission to perform this action.")


# The guides the served API documents link to (docs/<name>.md of this release), so an integrator who has only the
# hosted service can read them: the Markdown rendered as one plain page, raw HTML in it left escaped.
GUIDES = {"": ("api.md", "API guide"), "sandbox": ("sandbox.md", "Sandbox guide")}
GUIDE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}
pre{{background:#f4f4f4;padding:.75rem;overflow:auto}}code{{font-size:90%}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top}}</style>
</head><body><p><a href="/api/docs/">API reference (Swagger)</a> · <a href="/api/redoc/">ReDoc</a> ·
<a href="/api/guide/">API guide</a> · <a href="/api/guide/sandbox/">Sandbox guide</a></p>
{body}</body></html>"""


@lru_cache(maxsize=len(GUIDES))
def _guide_html(name: str) -> str:
    from markdown_it import MarkdownIt

    file_name, title = GUIDES[name]
    text = (Path(settings.BASE_DIR) / "docs" / file_name).read_text()
    return GUIDE_PAGE.format(title=title, body=MarkdownIt("commonmark", {"html": False}).enable("table").render(text))


# What GET / answers: where a newcomer who tried the bare address goes next (newcomer review 2026-12-07 D13: a JSON
# 404 there told them nothing).
SERVICE_INDEX = {
    "message": "Vault payments API: the routes are documented at /api/docs/ (Swagger UI) and /api/redoc/; the guides "
    "at /api/guide/.",
    "docs": "/api/docs/",
    "redoc": "/api/redoc/",
    "guide": "/api/guide/",
    "schema": "/api/schema/",
    "health": "/health",
}


def service_index(request):
    if request.method not in ("GET", "HEAD"):
        return error_response(405, ErrorCode.METHOD_NOT_ALLOWED, f'Method "{request.method}" not allowed.')
    return HttpResponse(json.dumps(success_body(SERVICE_INDEX)), content_type="application/json")


def api_guide(request, name: str = ""):
    if name not in GUIDES:
        return not_found(request)
    return HttpResponse(_guide_html(name), content_type="text/html; charset=utf-8")


# ReDoc's bundle draws its sidebar badge from the ReDoc CDN; served here with that one address replaced by an empty
# image, so the page fetches nothing from outside (the page's Content-Security-Policy would block it anyway).
REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
REDOC_CDN_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@lru_cache(maxsize=1)
def _redoc_bundle() -> bytes:
    from django.contrib.staticfiles import finders

    text = Path(finders.find(REDOC_BUNDLE)).read_text()
    return text.replace(REDOC_CDN_LOGO, "data:image/gif;base64,R0lGODlhAQABAAAAACw=").encode()


def redoc_bundle(request):
    response = HttpResponse(_redoc_bundle(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "public, max-age=86400"
    return response
