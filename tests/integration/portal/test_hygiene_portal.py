"""Issue 11 holes 4, 7, 9, 10 through the management plane's own handlers (moto): nothing is written or sent
for a refused request."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.lambdas import invoke, with_request
from tests.support.portal import Portal, Session, assert_error, event_for

DEEP = "[" * 10_000 + "]" * 10_000


@pytest.fixture
def owner(portal: Portal) -> Session:
    return portal.sign_in("owner@example.com", plan="pro")


def two_credentials(event: dict[str, Any], first: str, second: str) -> dict[str, Any]:
    """Two ``Authorization`` lines, as API Gateway passes them: the last in ``headers``, both in multi-value."""
    for key in [k for k in event["headers"] if k.lower() == "authorization"]:
        del event["headers"][key]
        event["multiValueHeaders"].pop(key, None)
    event["headers"]["Authorization"] = f"Bearer {second}"
    event["multiValueHeaders"]["Authorization"] = [f"Bearer {first}", f"Bearer {second}"]
    return event


def test_two_users_tokens_in_one_request_are_401(portal: Portal, owner: Session) -> None:
    other = portal.sign_in("other@example.com", plan="pro")
    for first, second in ((owner.token, other.token), (other.token, owner.token), (owner.token, owner.token)):
        event = two_credentials(event_for("PortalWorkspacesListFunction"), first, second)
        assert_error(invoke("PortalWorkspacesListFunction", event), 401, "UNAUTHORIZED")
    ok = invoke("PortalWorkspacesListFunction", event_for("PortalWorkspacesListFunction", token=owner.token))
    assert ok.status == 200


@pytest.mark.parametrize("name", ["Acme\x00", "Ac\x1bme", "Acme\r\nX-Injected: 1", "\u200b\u2060", "A\u0085B"])
def test_workspace_names_with_control_characters_are_400_and_nothing_is_written(
    portal: Portal, owner: Session, name: str
) -> None:
    result = portal.call("PortalWorkspacesCreateFunction", token=owner.token, body={"name": name})
    assert_error(result, 400, "VALIDATION_ERROR")
    assert result.json()["error"].startswith("name:")
    listed = portal.call("PortalWorkspacesListFunction", token=owner.token)
    assert listed.json() == []


def test_key_names_with_control_characters_are_400_and_no_key_exists(portal: Portal, owner: Session) -> None:
    workspace = portal.create_workspace(owner)
    params = {"workspaceId": workspace["id"]}
    for name in ("key\x00", "k\u2028ey", "\ufeff"):
        result = portal.call("PortalKeysMintFunction", token=owner.token, params=params, body={"name": name})
        assert_error(result, 400, "VALIDATION_ERROR")
        assert result.json()["error"].startswith("name:")
    listed = portal.call("PortalKeysListFunction", token=owner.token, params=params)
    assert listed.json() == {"keys": [], "nextCursor": None}


def test_null_rate_limit_mints_with_the_default(portal: Portal, owner: Session) -> None:
    workspace = portal.create_workspace(owner)
    assert portal.mint_key(owner, workspace["id"], rateLimit=None)["rateLimit"] == 600


def test_nfc_and_nfd_names_get_the_same_slug_base(portal: Portal, owner: Session) -> None:
    first = portal.create_workspace(owner, "Café Olé")
    second = portal.create_workspace(owner, "Cafe\u0301 Ole\u0301")
    full_width = portal.create_workspace(owner, "".join(chr(ord(c) + 0xFEE0) for c in "Acme"))
    assert (first["slug"], second["slug"], full_width["slug"]) == ("cafe-ole", "cafe-ole-2", "acme")
    assert second["name"] == "Café Olé"  # stored in NFC


def test_deeply_nested_sign_in_body_is_400_and_sends_nothing(portal: Portal) -> None:
    result = portal.call("PortalMagicLinkFunction", body=DEEP)
    assert_error(result, 400, "VALIDATION_ERROR")
    nested_email = '{"email": ' + DEEP + "}"
    assert_error(portal.call("PortalMagicLinkFunction", body=nested_email), 400, "VALIDATION_ERROR")
    assert portal.mails() == []


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_sign_in_body_not_declared_json_is_415_and_sends_nothing(portal: Portal, content_type: str | None) -> None:
    body = json.dumps({"email": "someone@example.com"})
    result = portal.call("PortalMagicLinkFunction", body=body, headers={"Content-Type": content_type})
    assert_error(result, 415, "UNSUPPORTED_MEDIA_TYPE")
    assert portal.mails() == []


@pytest.mark.parametrize("value", ["+5", " 5", "1_0", "5.0", "\uff15"])
def test_credit_history_query_integers_are_plain_digits(portal: Portal, owner: Session, value: str) -> None:
    for name in ("limit", "offset"):
        event = with_request(event_for("PortalCreditsHistoryFunction", token=owner.token), query={name: value})
        result = invoke("PortalCreditsHistoryFunction", event)
        assert_error(result, 400, "VALIDATION_ERROR")
        assert result.json()["error"].startswith(f"{name}:")
