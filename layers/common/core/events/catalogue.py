"""The event types a webhook may ask for (authoring.md, "Webhooks: events sent to the owner's systems"), with the
extensions docs/decisions.md lists; ``WILDCARD`` asks for every one."""

from __future__ import annotations

WILDCARD = "*"

EVENT_TYPES: tuple[str, ...] = (
    "conversation.turn.completed",
    "feedback.created",
    "knowledge.item.indexed",
    "knowledge.item.failed",
    "credits.low",
    "credits.exhausted",
    "credits.granted",
    "member.joined",
    "member.removed",
    "agent.deleted",
    "conversation.erased",
    "conversations.retention.applied",
    "webhook.test",
)
