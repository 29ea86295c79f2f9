"""The admin site as support staff see it: the product's name in the header, and the libraries' own tables
(background-task results, JWT token blacklist) for superusers only."""

from __future__ import annotations

from django.contrib import admin

# The accounts pages, then the company page with the return-rate program (registering them here keeps the
# transactions, events and accounts apps below the admin that composes them).
from backoffice import accounts_admin, risk_admin  # noqa: F401
from vault.admin_scoping import SuperuserOnlyAdminMixin

PRODUCT_NAME = "Vault payments"
# Apps whose models are plumbing, not merchants' data.
LIBRARY_APPS = ("token_blacklist", "django_tasks_db", "django_tasks")

admin.site.site_header = f"{PRODUCT_NAME} back office"
admin.site.site_title = f"{PRODUCT_NAME} back office"
admin.site.index_title = "Merchants, customers and money movement"
admin.site.site_url = "/api/docs/"  # "View site": the API's own documentation (there is no other front page)

for model, model_admin in list(admin.site._registry.items()):
    if model._meta.app_label in LIBRARY_APPS and not isinstance(model_admin, SuperuserOnlyAdminMixin):
        admin.site.unregister(model)
        admin.site.register(
            model, type(f"SuperuserOnly{type(model_admin).__name__}", (SuperuserOnlyAdminMixin, type(model_admin)), {})
        )
