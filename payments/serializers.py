"""The saved method as the API shows it (SPEC 2.2, 4.2, 4.5, 4.6): the routes' answers and, masked, the
events' `data`."""

from __future__ import annotations

from rest_framework import serializers

from payments.models import PaymentMethod
from vault.records import mask, text_or_none


class PaymentMethodCreatedOutput(serializers.Serializer):
    customerUuid = serializers.UUIDField(source="customer.uuid")
    paymentMethodUuid = serializers.UUIDField(source="uuid")
    type = serializers.CharField()
    accountType = serializers.CharField(source="account_type")
    lastFourDigits = serializers.CharField(source="last_four")
    displayName = serializers.CharField(source="display_name")
    nickname = serializers.CharField(allow_null=True)
    isDefault = serializers.BooleanField(source="is_default")
    # CONTRACT 11: the account's validation state.
    validationStatus = serializers.ChoiceField(
        source="validation_status", choices=PaymentMethod.ValidationStatus.choices
    )
    validationMethod = serializers.ChoiceField(
        source="validation_method", choices=PaymentMethod.ValidationMethod.choices, allow_null=True
    )
    validatedAt = serializers.DateTimeField(source="validated_at", allow_null=True)
    correctedName = serializers.CharField(
        source="corrected_name",
        allow_null=True,
        help_text="The account holder's name as the bank corrected it (notice of change C04); charges of this method "
        "go out in it instead of the customer's name. Null until such a notice arrives.",
    )
    # Why a charge to this method is refused: a return (R02, R03, ...) blocked it until an admin lifts the block.
    blocked = serializers.SerializerMethodField(
        help_text="true when a return blocked this method: every new debit to it is refused (409) until lifted"
    )
    blockedAt = serializers.DateTimeField(source="blocked_at", allow_null=True)
    blockedReason = serializers.CharField(
        source="blocked_reason", allow_null=True, help_text="the return that blocked it, e.g. `R03 No Account/...`"
    )

    def get_blocked(self, instance) -> bool:
        return instance.blocked_at is not None

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["nickname"] = text_or_none(data["nickname"])
        data["validationMethod"] = text_or_none(data["validationMethod"])
        data["blockedReason"] = text_or_none(data["blockedReason"])
        return data


class PaymentMethodOutput(PaymentMethodCreatedOutput):
    """The full method, account and routing numbers included (list and single reads only)."""

    schema_description = "A saved bank account with its full account and routing numbers (list and single reads only)."

    accountNumber = serializers.CharField(source="account_number")
    routingNumber = serializers.CharField(source="routing_number")


class PaymentMethodEventOutput(PaymentMethodCreatedOutput):
    """The method as its events carry it: PaymentMethodOutput's fields, the account number masked from its last four
    digits (so the full number is never read, nor decrypted, to be masked)."""

    accountNumber = serializers.SerializerMethodField()
    routingNumber = serializers.CharField(source="routing_number")

    def get_accountNumber(self, instance) -> str:
        return mask(instance.last_four)
