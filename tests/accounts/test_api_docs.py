"""Swagger UI and ReDoc load every asset from the service itself (drf-spectacular-sidecar), never from a CDN:
/api/docs/ works on a machine without internet (review L6)."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders

ASSET = re.compile(r"""(?:src|href)=["']([^"']+)["']""")


@pytest.mark.parametrize(("page", "bundle"), [("/api/docs/", "swagger-ui-bundle.js"), ("/api/redoc/", "redoc")])
def test_docs_pages_load_only_assets_the_service_serves(anonymous_client, page, bundle):
    response = anonymous_client.get(page)
    assert response.status_code == 200
    html = response.content.decode()
    assets = ASSET.findall(html)
    assert any(bundle in asset for asset in assets), assets
    assert "://" not in " ".join(assets) and not any(asset.startswith("//") for asset in assets), assets
    assert "jsdelivr" not in html and "googleapis" not in html
    for asset in assets:
        assert asset.startswith(settings.STATIC_URL) or asset.startswith("/" + settings.STATIC_URL), asset
        relative = asset.split(settings.STATIC_URL, 1)[1]
        assert finders.find(relative), f"{asset} is not among the static files"
