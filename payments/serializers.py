"""The saved method as the API shows it (SPEC 2.2, 4.2, 4.5, 4.6): the routes' answers and, masked, the
events' `data`."""

from __future__ import annotations

from rest_framework import serializers

from payments.models import PaymentMethod


class PaymentMethodCreatedOutput(serializers.Serializer):
    customerUuid = serializers.UUIDField(source="customer.uuid")  # noqa: N815
    paymentMethodUuid = serializers.UUIDField(source="uuid")  # noqa: N815
    type = serializers.CharField()
    accountType = serializers.CharField(source="account_type")  # noqa: N815
    lastFourDigits = serializers.CharField(source="last_four")  # noqa: N815
    displayName = serializers.CharField(source="display_name")  # noqa: N815
    nickname = serializers.CharField(allow_null=True)
    isDefault = serializers.BooleanField(source="is_default")  # noqa: N815
    # CONTRACT 11: the account's validation state.
    validationStatus = serializers.ChoiceField(  # noqa: N815
        source="validation_status", choices=PaymentMethod.ValidationStatus.choices
    )
    validationMethod = serializers.ChoiceField(  # noqa: N815
        source="validation_method", choices=PaymentMethod.ValidationMethod.choices, allow_null=True
    )
    validatedAt = serializers.DateTimeField(source="validated_at", allow_null=True)  # noqa: N815

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["nickname"] = data["nickname"] or None
        data["validationMethod"] = data["validationMethod"] or None
        return data


class PaymentMethodOutput(PaymentMethodCreatedOutput):
    """The full method, account and routing numbers included (SPEC 2.2: list and single reads only)."""

    accountNumber = serializers.CharField(source="account_number")  # noqa: N815
    routingNumber = serializers.CharField(source="routing_number")  # noqa: N815
