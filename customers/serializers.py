"""The customer as the API shows it (SPEC 4.1, 4.4): the routes' answers and the events' `data`."""

from __future__ import annotations

from rest_framework import serializers

from customers.models import Customer
from vault.records import texts_or_none


class CustomerCreatedOutput(serializers.Serializer):
    companyUuid = serializers.UUIDField(source="company.uuid")
    customerUuid = serializers.UUIDField(source="uuid")
    # Text fields that are empty read as null (CustomerOutput.to_representation, and the create view).
    firstName = serializers.CharField(source="first_name", allow_null=True)
    lastName = serializers.CharField(source="last_name", allow_null=True)
    status = serializers.ChoiceField(choices=Customer.Status.choices)


class CustomerOutput(CustomerCreatedOutput):
    companyName = serializers.CharField(source="company_name", allow_null=True)
    email = serializers.CharField(allow_null=True)
    phone = serializers.CharField(allow_null=True)
    accountHolderType = serializers.ChoiceField(source="account_holder_type", choices=Customer.HolderType.choices)
    customerId = serializers.CharField(source="customer_id", allow_null=True)
    defaultPaymentMethod = serializers.UUIDField(
        source="default_payment_method_uuid", default=None, required=False, help_text="Present only when set."
    )

    def to_representation(self, instance):
        data = super().to_representation(instance)
        # SPEC 4.4: defaultPaymentMethod appears only when set; other absent text fields read as null.
        if data["defaultPaymentMethod"] is None:
            del data["defaultPaymentMethod"]
        return texts_or_none(data)
