"""Serializer bases: unknown body fields are an error (STYLE: unknown input is never ignored), and an optional
field sent as JSON null is treated as left out (CONTRACT 4)."""

from __future__ import annotations

import copy
import unicodedata

from rest_framework import serializers

from vault.error_codes import ErrorCode


class StrictSerializer(serializers.Serializer):
    # Rejects a body that is not an object or that carries fields the serializer does not declare; drops optional
    # fields sent as null, so they read exactly as if they had been left out (a required field sent as null is
    # still refused, naming it). A comment, not a docstring: OpenAPI would show it on every request body.

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                {"non_field_errors": [serializers.ErrorDetail("Expected a JSON object.", code=ErrorCode.INVALID)]}
            )
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError(
                {name: [serializers.ErrorDetail("Unknown field.", code=ErrorCode.UNKNOWN_FIELD)] for name in unknown}
            )
        return super().to_internal_value(without_optional_nulls(data, self.fields, partial=self.partial))


class ShallowFieldsMixin:
    """Each instance's fields as shallow copies of the declared ones, where DRF deep-copies them, which rebuilds every
    field from its arguments (choices, validators) on every instance: about a tenth of a charge's CPU. A copy shares
    only what its field never changes after __init__ (choices, validators, error messages); bind() sets the rest on
    the copy. For serializers whose fields are plain fields, not nested serializers (which keep their own bound
    fields)."""

    def get_fields(self):
        return {name: copy.copy(field) for name, field in self._declared_fields.items()}


def without_optional_nulls(data: dict, fields, *, partial: bool = False) -> dict:
    """`data` without the keys whose value is null and whose field is optional (CONTRACT 4: null means absent)."""
    if not any(value is None for value in data.values()):
        return data
    return {name: value for name, value in data.items() if value is not None or (fields[name].required and not partial)}


class StrictIntegerField(serializers.IntegerField):
    """An integer that must arrive as a JSON integer: 10.5, "10" and true are all rejected."""

    default_error_messages = {"type": "Must be a JSON integer."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("type")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A boolean that must arrive as JSON true/false, not "yes" or 1."""

    default_error_messages = {"type": "Must be a JSON boolean."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("type")
        return data


class StrictCharField(serializers.CharField):
    """A string that must arrive as a JSON string (DRF's CharField would accept numbers)."""

    default_error_messages = {"type": "Must be a string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("type")
        return super().to_internal_value(data)


class OneLineCharField(StrictCharField):
    """A string of one line: no control character (a newline, a tab, ...). Its value is printed as one field of a
    document (a proof packet), where a newline would print what looks like another field (security review L3)."""

    default_error_messages = {"control": "Must be one line: no control characters (newline, tab, ...)."}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if any(unicodedata.category(character) == "Cc" for character in value):
            self.fail("control")
        return value


class StrictChoiceField(serializers.ChoiceField):
    """A choice that must arrive as a JSON string (DRF's ChoiceField would match 1 to "1")."""

    default_error_messages = {"type": "Must be a string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("type")
        return super().to_internal_value(data)


class StrictUUIDField(serializers.UUIDField):
    """A UUID that must arrive as a string (DRF's UUIDField would turn an integer into a UUID)."""

    default_error_messages = {"type": "Must be a UUID string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("type")
        return super().to_internal_value(data)


class StrictDateField(serializers.DateField):
    default_error_messages = {"type": "Must be a date string YYYY-MM-DD."}

    def __init__(self, **kwargs):
        super().__init__(input_formats=["%Y-%m-%d"], **kwargs)

    def to_internal_value(self, value):
        if not isinstance(value, str):
            self.fail("type")
        return super().to_internal_value(value)


def body_refuse(request, message: str = "This route takes no body.") -> None:
    """400 when a route that takes no body is sent one. An empty body, `{}` and `null` are no body; anything else,
    `[]` included, is refused, so a client that thinks it sent something hears that it was not read."""
    if request.body and request.data not in ({}, None):
        raise serializers.ValidationError(
            {"non_field_errors": [serializers.ErrorDetail(message, code=ErrorCode.INVALID)]}
        )
