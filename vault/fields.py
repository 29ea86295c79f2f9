"""Model field that keeps a string encrypted at rest and plain in Python."""

from __future__ import annotations

from django.db import models

from vault import crypto


class EncryptedTextField(models.TextField):
    description = "Text encrypted at rest with FIELD_ENCRYPTION_KEYS"

    def from_db_value(self, value, expression, connection):
        return None if value is None else crypto.decrypt(value)

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return None if value in (None, "") else crypto.encrypt(value)
