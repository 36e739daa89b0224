"""Wire rules shared by every portal route: the body size limit, and sessions that lapse after 30 days."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from tests.support.portal import Portal, assert_error

BIG = '{"name": "' + "x" * (256 * 1024) + '"}'


@pytest.mark.parametrize(
    "function", ["PortalMagicLinkFunction", "PortalWorkspacesCreateFunction", "PortalKeysMintFunction"]
)
def test_a_body_over_256_kib_is_413(portal: Portal, function: str) -> None:
    owner = portal.sign_in("owner@example.com", plan="pro")
    ws = portal.create_workspace(owner)
    result = portal.call(function, token=owner.token, params={"workspaceId": ws["id"]}, body=BIG)
    assert_error(result, 413, "PAYLOAD_TOO_LARGE")
    assert len(portal.call("PortalWorkspacesListFunction", token=owner.token).json()) == 1


def test_a_body_just_under_the_limit_is_read(portal: Portal) -> None:
    owner = portal.sign_in("owner@example.com")
    body = '{"name": "Acme"}' + " " * (256 * 1024 - 16)
    assert portal.call("PortalWorkspacesCreateFunction", token=owner.token, body=body).status == 201


def test_a_lapsed_session_refuses_its_cookie_and_its_tokens(portal: Portal, monkeypatch: pytest.MonkeyPatch) -> None:
    session = portal.sign_in("lapsed@example.com")
    later = time.time() + 30 * 86400 + 1
    monkeypatch.setattr("core.identity.store.time", SimpleNamespace(time=lambda: later))
    assert_error(portal.api_token(session.cookie), 401, "UNAUTHORIZED")
    assert_error(portal.call("PortalAccountFunction", token=session.token), 401, "UNAUTHORIZED")
