"""The customer as the API shows it (SPEC 4.1, 4.4): the routes' answers and the events' `data`."""

from __future__ import annotations

from rest_framework import serializers


class CustomerCreatedOutput(serializers.Serializer):
    companyUuid = serializers.UUIDField(source="company.uuid")  # noqa: N815
    customerUuid = serializers.UUIDField(source="uuid")  # noqa: N815
    firstName = serializers.CharField(source="first_name")  # noqa: N815
    lastName = serializers.CharField(source="last_name")  # noqa: N815
    status = serializers.CharField()


class CustomerOutput(CustomerCreatedOutput):
    companyName = serializers.CharField(source="company_name")  # noqa: N815
    email = serializers.CharField()
    phone = serializers.CharField()
    accountHolderType = serializers.CharField(source="account_holder_type")  # noqa: N815
    customerId = serializers.CharField(source="customer_id")  # noqa: N815
    defaultPaymentMethod = serializers.UUIDField(source="default_payment_method_uuid", default=None)  # noqa: N815

    def to_representation(self, instance):
        data = super().to_representation(instance)
        # SPEC 4.4: defaultPaymentMethod appears only when set; other absent text fields read as null.
        if data["defaultPaymentMethod"] is None:
            del data["defaultPaymentMethod"]
        return {key: (None if value == "" else value) for key, value in data.items()}
