"""The event types an owner's webhook may ask for (authoring.md, "Webhooks: events sent to the owner's systems").

The contract's ten, and three extensions this service adds (``credits.granted``, ``conversation.erased``,
``conversations.retention.applied``: docs/decisions.md, "Webhooks: one home for events"). A webhook lists some of
them, or ``["*"]`` for every type. ``webhook.test`` is the writer's own (``POST …/test``); it never comes from a
table's stream.
"""

from __future__ import annotations

from collections.abc import Iterable

TURN_COMPLETED = "conversation.turn.completed"
FEEDBACK_CREATED = "feedback.created"
ITEM_INDEXED = "knowledge.item.indexed"
ITEM_FAILED = "knowledge.item.failed"
CREDITS_LOW = "credits.low"
CREDITS_EXHAUSTED = "credits.exhausted"
MEMBER_JOINED = "member.joined"
MEMBER_REMOVED = "member.removed"
AGENT_DELETED = "agent.deleted"
WEBHOOK_TEST = "webhook.test"
# Extensions (not in the contract's list; a webhook names them or "*")
CREDITS_GRANTED = "credits.granted"
CONVERSATION_ERASED = "conversation.erased"
RETENTION_APPLIED = "conversations.retention.applied"

CONTRACT_TYPES: tuple[str, ...] = (
    TURN_COMPLETED, FEEDBACK_CREATED, ITEM_INDEXED, ITEM_FAILED, CREDITS_LOW, CREDITS_EXHAUSTED, MEMBER_JOINED,
    MEMBER_REMOVED, AGENT_DELETED, WEBHOOK_TEST,
)  # fmt: skip
EXTENSION_TYPES: tuple[str, ...] = (CREDITS_GRANTED, CONVERSATION_ERASED, RETENTION_APPLIED)
EVENT_TYPES: tuple[str, ...] = CONTRACT_TYPES + EXTENSION_TYPES
WILDCARD = "*"


def subscribed(events: Iterable[str], event_type: str) -> bool:
    """Whether a webhook listing ``events`` receives ``event_type``."""
    wanted = set(events)
    return WILDCARD in wanted or event_type in wanted
