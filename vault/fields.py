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


class ReturnedBooleanField(models.BooleanField):
    """A BooleanField the INSERT itself may compute (an expression such as Exists as the value on save) and
    hand back through RETURNING, so the row's value is known without another query. The same column as a
    BooleanField: migrations see one (deconstruct), so swapping it in changes no schema."""

    db_returning = True

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.BooleanField", args, kwargs
