"""Model field that keeps a string encrypted at rest and plain in Python."""

from __future__ import annotations

from django.db import models

from vault import crypto


class Sealed(str):
    """A value read from an encrypted column, with the ciphertext it was read from (`token`). Written to an
    encrypted column again unchanged (a saved method's account number onto its charge), it is stored as that
    ciphertext: the same keys read it, and the hot path encrypts nothing. Any new or changed value is a plain str
    and is encrypted as ever."""

    token: str


class EncryptedTextField(models.TextField):
    description = "Text encrypted at rest with FIELD_ENCRYPTION_KEYS"

    def from_db_value(self, value, expression, connection):
        if value is None:
            return None
        sealed = Sealed(crypto.decrypt(value))
        sealed.token = value
        return sealed

    def get_prep_value(self, value):
        if type(value) is Sealed:
            return value.token
        value = super().get_prep_value(value)
        return None if value in (None, "") else crypto.encrypt(value)


class EncryptedBytesField(models.TextField):
    """A file encrypted at rest (a mandate's evidence): the Fernet token of its bytes, bytes in Python. Kept as text,
    as every encrypted column is, so key rotation (payments.rotation) treats it alike."""

    description = "Bytes encrypted at rest with FIELD_ENCRYPTION_KEYS"

    def from_db_value(self, value, expression, connection):
        return None if value is None else crypto.decrypt_bytes(value)

    def to_python(self, value):
        return value

    def get_prep_value(self, value):
        return None if value is None else crypto.encrypt_bytes(bytes(value))


class ReturnedBooleanField(models.BooleanField):
    """A BooleanField the INSERT itself may compute (an expression such as Exists as the value on save) and
    hand back through RETURNING, so the row's value is known without another query. The same column as a
    BooleanField: migrations see one (deconstruct), so swapping it in changes no schema."""

    db_returning = True

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.BooleanField", args, kwargs
