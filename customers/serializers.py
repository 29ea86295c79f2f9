"""The customer as the API shows it (SPEC 4.1, 4.4): the routes' answers and the events' `data`."""

from __future__ import annotations

from rest_framework import serializers


class CustomerCreatedOutput(serializers.Serializer):
    companyUuid = serializers.UUIDField(source="company.uuid")
    customerUuid = serializers.UUIDField(source="uuid")
    firstName = serializers.CharField(source="first_name")
    lastName = serializers.CharField(source="last_name")
    status = serializers.CharField()


class CustomerOutput(CustomerCreatedOutput):
    companyName = serializers.CharField(source="company_name")
    email = serializers.CharField()
    phone = serializers.CharField()
    accountHolderType = serializers.CharField(source="account_holder_type")
    customerId = serializers.CharField(source="customer_id")
    defaultPaymentMethod = serializers.UUIDField(source="default_payment_method_uuid", default=None)

    def to_representation(self, instance):
        data = super().to_representation(instance)
        # SPEC 4.4: defaultPaymentMethod appears only when set; other absent text fields read as null.
        if data["defaultPaymentMethod"] is None:
            del data["defaultPaymentMethod"]
        return {key: (None if value == "" else value) for key, value in data.items()}
