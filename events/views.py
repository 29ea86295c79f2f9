"""Webhook endpoints, events and replay (CONTRACT 9)."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from events.records import attempt_record, endpoint_record, event_body
from events.selectors import endpoint_get, endpoint_list, event_attempts, event_get, event_page
from events.services import endpoint_create, endpoint_delete, endpoint_replay, endpoint_rotate_secret, endpoint_update
from events.types import EventType
from idempotency.services import IDEMPOTENCY_CONFLICT, IDEMPOTENCY_PARAMETER, idempotent_response
from vault.error_codes import ErrorCode
from vault.openapi import ListKind, Paginated, error
from vault.pagination import MAX_PAGE_SIZE, paginated_body, whole_list_body
from vault.records import iso_utc
from vault.serializers import StrictBooleanField, StrictCharField, StrictChoiceField, StrictSerializer, body_refuse

MAX_REPLAY_IDS = 1000
EVENT_LIST = ListKind("EventListMeta", cursor=True, counted=False, meta_cursor=True)


class EventTypesField(serializers.ListField):
    child = StrictCharField(max_length=64)

    def to_internal_value(self, data):
        if not isinstance(data, list):
            raise serializers.ValidationError("Must be a list of event types.", code=ErrorCode.TYPE)
        return super().to_internal_value(data)


class EndpointCreateInput(StrictSerializer):
    url = StrictCharField(max_length=2000)
    eventTypes = EventTypesField(max_length=100)
    description = StrictCharField(max_length=255, required=False, allow_blank=True)


class EndpointUpdateInput(StrictSerializer):
    url = StrictCharField(max_length=2000, required=False)
    eventTypes = EventTypesField(max_length=100, required=False)
    description = StrictCharField(max_length=255, required=False, allow_blank=True)
    enabled = StrictBooleanField(required=False)


class CircuitOutput(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=["closed", "open", "half_open"],
        help_text="closed: sending. open: after consecutive failures nothing is sent before openUntil. half_open: "
        "the next delivery is a trial; success closes the circuit, failure opens it again for twice as long.",
    )
    consecutiveFailures = serializers.IntegerField()
    openUntil = serializers.DateTimeField(allow_null=True)


class EndpointOutput(serializers.Serializer):
    uuid = serializers.UUIDField()
    url = serializers.CharField()
    description = serializers.CharField(allow_null=True)
    eventTypes = serializers.ListField(child=serializers.CharField())
    enabled = serializers.BooleanField()
    disabledReason = serializers.CharField(allow_null=True)
    disabledAt = serializers.DateTimeField(allow_null=True)
    createdAt = serializers.DateTimeField()
    circuit = CircuitOutput()


class EndpointCreatedOutput(EndpointOutput):
    secret = serializers.CharField(help_text="whsec_<base64>: shown in this answer only.")


class SecretRotatedOutput(EndpointCreatedOutput):
    previousSecretExpiresAt = serializers.DateTimeField()


class AttemptOutput(serializers.Serializer):
    endpointUuid = serializers.UUIDField()
    attemptedAt = serializers.DateTimeField()
    statusCode = serializers.IntegerField(allow_null=True)
    durationMs = serializers.IntegerField()
    error = serializers.CharField(allow_null=True)


class EventOutput(serializers.Serializer):
    id = serializers.UUIDField()
    type = serializers.ChoiceField(choices=EventType.choices)
    timestamp = serializers.DateTimeField()
    companyUuid = serializers.UUIDField()
    objectUuid = serializers.UUIDField()
    sequence = serializers.IntegerField()
    data = serializers.DictField(help_text="The object as its own GET route shows it (masked).")


class EventDetailOutput(EventOutput):
    attempts = AttemptOutput(many=True)


class EventListQuery(StrictSerializer):
    type = StrictChoiceField(choices=EventType.choices, required=False)
    objectUuid = serializers.UUIDField(required=False)
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)
    cursor = StrictCharField(max_length=200, required=False)
    pageSize = serializers.IntegerField(min_value=1, max_value=MAX_PAGE_SIZE, required=False, default=50)


class ReplayInput(StrictSerializer):
    eventIds = serializers.ListField(
        child=serializers.UUIDField(), required=False, min_length=1, max_length=MAX_REPLAY_IDS
    )
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)

    def validate(self, attrs):
        by_ids = "eventIds" in attrs
        by_range = "since" in attrs or "until" in attrs
        if by_ids == by_range:
            raise serializers.ValidationError("Send eventIds, or since and until.", code=ErrorCode.REQUIRED)
        if by_range and not ("since" in attrs and "until" in attrs):
            missing = "until" if "since" in attrs else "since"
            raise serializers.ValidationError({missing: ["Required with a time range."]}, code=ErrorCode.REQUIRED)
        if by_range and attrs["since"] > attrs["until"]:
            raise serializers.ValidationError({"until": ["Must not be before since."]}, code=ErrorCode.INVALID)
        return attrs


def _created_record(endpoint) -> dict:
    return {**endpoint_record(endpoint), "secret": endpoint.secret}


class EndpointListView(APIView):
    @extend_schema(
        operation_id="webhook_endpoint_create",
        request=EndpointCreateInput,
        responses={
            201: EndpointCreatedOutput,
            400: error("unsafe_url: not https on port 443/8443, or resolves to a private or reserved address."),
            409: error(
                "endpoint_url_exists: the company has an endpoint with this url; endpoint_limit_reached: the company "
                f"has WEBHOOK_ENDPOINTS_PER_COMPANY (default 16) endpoints. {IDEMPOTENCY_CONFLICT}"
            ),
        },
        parameters=[IDEMPOTENCY_PARAMETER],
    )
    def post(self, request):
        body = EndpointCreateInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        return idempotent_response(
            request,
            create=lambda: _created_record(
                endpoint_create(
                    company=request.company,
                    url=data["url"],
                    event_types=data["eventTypes"],
                    description=data.get("description", ""),
                )
            ),
            sealed={"secret"},  # shown in this answer and its replays, stored encrypted
        )

    @extend_schema(operation_id="webhook_endpoint_list", responses={200: Paginated(EndpointOutput)})
    def get(self, request):
        # Every endpoint of the company fits one page (at most WEBHOOK_ENDPOINTS_PER_COMPANY).
        return Response(
            whole_list_body([endpoint_record(endpoint) for endpoint in endpoint_list(company=request.company)])
        )


class EndpointDetailView(APIView):
    @extend_schema(operation_id="webhook_endpoint_get", responses={200: EndpointOutput})
    def get(self, request, endpoint_uuid: UUID):
        return Response(endpoint_record(endpoint_get(company=request.company, endpoint_uuid=endpoint_uuid)))

    @extend_schema(
        operation_id="webhook_endpoint_update",
        request=EndpointUpdateInput,
        responses={200: EndpointOutput, 409: error("endpoint_url_exists: another endpoint has this url.")},
    )
    def patch(self, request, endpoint_uuid: UUID):
        endpoint_get(company=request.company, endpoint_uuid=endpoint_uuid)
        body = EndpointUpdateInput(data=request.data)
        body.is_valid(raise_exception=True)
        names = {"url": "url", "eventTypes": "event_types", "description": "description", "enabled": "enabled"}
        changes = {names[key]: value for key, value in body.validated_data.items()}
        endpoint = endpoint_update(company=request.company, endpoint_uuid=endpoint_uuid, changes=changes)
        return Response(endpoint_record(endpoint))

    @extend_schema(operation_id="webhook_endpoint_delete", responses={204: None})
    def delete(self, request, endpoint_uuid: UUID):
        endpoint_delete(company=request.company, endpoint_uuid=endpoint_uuid)
        return Response(status=204)


class EndpointRotateSecretView(APIView):
    @extend_schema(operation_id="webhook_endpoint_rotate_secret", request=None, responses={200: SecretRotatedOutput})
    def post(self, request, endpoint_uuid: UUID):
        body_refuse(request)
        endpoint = endpoint_rotate_secret(company=request.company, endpoint_uuid=endpoint_uuid)
        record = _created_record(endpoint)
        record["previousSecretExpiresAt"] = iso_utc(endpoint.previous_secret_expires_at)
        return Response(record)


class EndpointReplayView(APIView):
    @extend_schema(
        operation_id="webhook_endpoint_replay",
        request=ReplayInput,
        responses={
            202: inline_serializer("ReplayAccepted", {"replayed": serializers.IntegerField()}),
            409: error(
                "replay_in_flight: an earlier replay to this endpoint is still being delivered (one at a time); "
                "endpoint_disabled."
            ),
            429: error(
                "replay_budget_exhausted: the company's replays would exceed WEBHOOK_REPLAY_EVENTS_PER_DAY events "
                "(default 10,000) in 24 h; Retry-After says when budget frees up."
            ),
        },
    )
    def post(self, request, endpoint_uuid: UUID):
        endpoint_get(company=request.company, endpoint_uuid=endpoint_uuid)
        body = ReplayInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        count = endpoint_replay(
            company=request.company,
            endpoint_uuid=endpoint_uuid,
            event_uuids=data.get("eventIds"),
            since=data.get("since"),
            until=data.get("until"),
        )
        return Response({"replayed": count}, status=202)


_EVENT_LIST_PARAMS = [
    OpenApiParameter("type", str, required=False, description="One event type."),
    OpenApiParameter("objectUuid", str, required=False, description="Events of one object."),
    OpenApiParameter("since", str, required=False, description="Created at or after (ISO 8601)."),
    OpenApiParameter("until", str, required=False, description="Created at or before (ISO 8601)."),
    OpenApiParameter("cursor", str, required=False, description="meta.nextCursor of the previous page."),
    OpenApiParameter("pageSize", int, required=False, description="1..1000 (default 50)."),
]


class EventListView(APIView):
    @extend_schema(
        operation_id="event_list",
        parameters=_EVENT_LIST_PARAMS,
        responses={200: Paginated(EventOutput, kind=EVENT_LIST)},
    )
    def get(self, request):
        params = {key: value for key, value in request.query_params.items() if key != "entityUuid"}
        query = EventListQuery(data=params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        events, next_cursor = event_page(
            company=request.company,
            filters={
                "type": data.get("type"),
                "object_uuid": data.get("objectUuid"),
                "since": data.get("since"),
                "until": data.get("until"),
            },
            cursor=data.get("cursor"),
            page_size=data["pageSize"],
        )
        company_uuid = request.company.uuid
        rows = [event_body(event, company_uuid=company_uuid) for event in events]
        # Events are walked by cursor and not counted (the table is the busiest one); meta.nextCursor, the list's
        # key before meta.pagination, stays for clients that read it.
        body = paginated_body(
            rows,
            page=None,
            page_size=data["pageSize"],
            total_filtered=None,
            total=None,
            extra={"nextCursor": next_cursor},
            meta={"nextCursor": next_cursor},
        )
        return Response(body)


class EventDetailView(APIView):
    @extend_schema(operation_id="event_get", responses={200: EventDetailOutput})
    def get(self, request, event_uuid: UUID):
        event = event_get(company=request.company, event_uuid=event_uuid)
        body = event_body(event)
        body["attempts"] = [attempt_record(attempt) for attempt in event_attempts(event=event)]
        return Response(body)
