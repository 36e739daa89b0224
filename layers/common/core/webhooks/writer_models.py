"""The webhooks' wire models (authoring.md, "Webhooks: events sent to the owner's systems"): request bodies and the
deliveries' query (strict: unknown fields refused, ``null`` is absent), and what an owner reads back. No answer but
create's and rotate's carries a secret."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from core.events.catalogue import EVENT_TYPES, WILDCARD
from core.platform.fields import QueryInt
from core.platform.models import ApiModel, RequestModel
from core.platform.write_fields import ListQuery, free_text_rules
from core.webhooks.records import MAX_DESCRIPTION, MAX_URL, DeliveryStatus

EVENT_NAMES = (*EVENT_TYPES, WILDCARD)


def _known_event(value: str) -> str:
    if value not in EVENT_NAMES:
        raise ValueError(f"{value!r} is not an event type (one of {', '.join(EVENT_NAMES)})")
    return value


def _event_list(value: list[str]) -> list[str]:
    """The types once each, in the order sent; ``*`` (every type) stands alone."""
    if WILDCARD in value and len(value) > 1:
        raise ValueError('"*" means every event: send ["*"] alone')
    return list(dict.fromkeys(value))


EventName = Annotated[str, Field(json_schema_extra={"enum": list(EVENT_NAMES)}), AfterValidator(_known_event)]
Events = Annotated[list[EventName], Field(min_length=1, max_length=len(EVENT_NAMES)), AfterValidator(_event_list)]
Url = Annotated[str, Field(min_length=1, max_length=MAX_URL, pattern=r"^[^\s\x00-\x1f\x7f]+$")]
Description = Annotated[str, *free_text_rules(MAX_DESCRIPTION)]


class Webhook(ApiModel):
    id: str
    url: str
    events: list[str] = Field(description='the event types sent to it, or ["*"]: every type')
    description: str
    enabled: bool
    disabled_reason: Literal["gone", "failing"] | None = Field(
        description="why deliveries stopped: gone (the receiver answered 410), failing (8 days of nothing but "
        "failures); null while enabled or when an owner or admin disabled it"
    )  # fmt: skip
    created_at: str
    updated_at: str


class WebhookEnvelope(ApiModel):
    webhook: Webhook


class WebhookList(ApiModel):
    webhooks: list[Webhook]


class WebhookCreated(ApiModel):
    webhook: Webhook
    secret: str = Field(description="whsec_…: the signing secret, shown this once (rotate makes a new one)")


class WebhookSecret(ApiModel):
    secret: str = Field(description="the new whsec_… secret; the previous one signs too for 24 hours")


class WebhookCreate(RequestModel):
    url: Url = Field(description="https:// URL of a public address (checked when saved and at each delivery)")
    events: Events
    description: Description = ""


class WebhookUpdate(RequestModel):
    url: Url | None = None
    events: Events | None = None
    description: Description | None = None
    enabled: bool | None = Field(None, description="true re-enables a disabled webhook (disabledReason cleared)")


class Delivery(ApiModel):
    id: str
    event_id: str = Field(description="the webhook-id header: the same on every attempt")
    type: str
    status: DeliveryStatus
    attempts: int
    last_status: int | None = Field(description="the receiver's HTTP status of the last attempt")
    last_error: str | None
    next_attempt_at: str | None
    created_at: str


class DeliveryPage(ApiModel):
    deliveries: list[Delivery]
    next_cursor: str | None


class DeliveryStarted(ApiModel):
    delivery_id: str


class DeliveryQuery(ListQuery):
    limit: QueryInt = Field(20, ge=1, le=100)
    cursor: str | None = Field(None, min_length=1, max_length=512)
    status: DeliveryStatus | None = None
