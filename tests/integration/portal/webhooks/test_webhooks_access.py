"""Who may use the webhooks' routes: owners and admins; a member is 403 on each of the eight (the listing too: a
webhook's URL and deliveries are the owner's systems); anyone else, and another workspace's webhook or delivery, 404."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from tests.support.authoring import Studio
from tests.support.portal import assert_error
from tests.support.webhooks import (
    CREATE,
    DELETE,
    DELIVERIES,
    LIST,
    RETRY,
    ROTATE,
    TEST,
    UPDATE,
    URL,
    create,
    put_delivery,
    queued,
    stored_webhook,
)

BODIES: dict[str, Any] = {CREATE: {"url": URL, "events": ["*"]}, UPDATE: {"enabled": False}}
ROUTES = [LIST, CREATE, UPDATE, DELETE, ROTATE, TEST, DELIVERIES, RETRY]


def _ids(function: str, webhook_id: str, delivery_id: str) -> dict[str, str]:
    if function in (LIST, CREATE):
        return {}
    return {"webhook_id": webhook_id} | ({"delivery_id": delivery_id} if function == RETRY else {})


@pytest.fixture
def target(studio: Studio) -> tuple[str, str]:
    webhook = create(studio)["webhook"]
    delivery = put_delivery(studio, webhook["id"], datetime(2026, 11, 1, tzinfo=UTC), "failed", 8)
    return webhook["id"], delivery.id


@pytest.mark.parametrize("function", ROUTES)
def test_a_member_is_403(studio: Studio, target: tuple[str, str], function: str) -> None:
    member = studio.member()
    result = member.call(function, body=BODIES.get(function), **_ids(function, *target))
    assert_error(result, 403, "FORBIDDEN")
    assert "whsec_" not in result.body


@pytest.mark.parametrize("function", ROUTES)
def test_a_stranger_is_404(studio: Studio, target: tuple[str, str], function: str) -> None:
    result = studio.stranger().call(function, body=BODIES.get(function), **_ids(function, *target))
    assert_error(result, 404, "NOT_FOUND")
    assert stored_webhook(studio, target[0]) is not None and queued(studio) == []


@pytest.mark.parametrize("function", [UPDATE, DELETE, ROTATE, TEST, DELIVERIES, RETRY])
def test_another_workspaces_webhook_is_404_in_ones_own(studio: Studio, target: tuple[str, str], function: str) -> None:
    """The victim's ids sent to the attacker's own workspace (where the attacker is the owner)."""
    attacker = Studio.open(studio.portal, "attacker@example.com", name="Mine")
    result = attacker.call(function, body=BODIES.get(function), **_ids(function, *target))
    assert_error(result, 404, "NOT_FOUND")
    stored = stored_webhook(studio, target[0])
    assert stored is not None and stored["enabled"] is True and stored["version"] == 0 and queued(studio) == []


def test_another_webhooks_delivery_is_404(studio: Studio, target: tuple[str, str]) -> None:
    other = create(studio)["webhook"]
    assert_error(studio.call(RETRY, webhook_id=other["id"], delivery_id=target[1]), 404, "NOT_FOUND")
    assert queued(studio) == []


@pytest.mark.parametrize("function", ROUTES)
def test_an_admin_may(studio: Studio, target: tuple[str, str], function: str) -> None:
    admin = studio.member("admin@example.com", role="admin")
    status = {CREATE: 201, TEST: 202, RETRY: 202}.get(function, 200)
    result = admin.call(function, body=BODIES.get(function), **_ids(function, *target))
    assert result.status == status, result.body
