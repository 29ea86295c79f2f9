"""Serializer bases: unknown body fields are an error (STYLE: unknown input is never ignored)."""

from __future__ import annotations

from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """Rejects a body that is not an object or that carries fields the serializer does not declare."""

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                {"non_field_errors": [serializers.ErrorDetail("Expected a JSON object.", code="invalid")]}
            )
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError(
                {name: [serializers.ErrorDetail("Unknown field.", code="unknown_field")] for name in unknown}
            )
        return super().to_internal_value(data)


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


class StrictChoiceField(serializers.ChoiceField):
    """A choice that must arrive as a JSON string (DRF's ChoiceField would match 1 to "1")."""

    default_error_messages = {"type": "Must be a string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("type")
        return super().to_internal_value(data)
