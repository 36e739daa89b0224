"""Workspace keys that must not authenticate: typos, forgeries, revoked keys, keys of a deleted workspace,
and ambiguous ``Authorization`` headers (core/keys/key_format.py, core/platform/rest/bearer.py,
services/key_auth.py)."""

from __future__ import annotations

import pytest

from core.keys.key_format import generate, is_well_formed
from tests.support.attack import Cast, demo, portal, send
from tests.support.runner import LocalService, Reply

pytestmark = pytest.mark.attack

VAGUE = {"error": "Invalid or missing API key", "code": "UNAUTHORIZED"}


def whoami(service: LocalService, *authorization: str) -> Reply:
    return send(service, service.brain, "GET", "/v1/agent/_whoami", [("Authorization", a) for a in authorization])


def assert_vague_401(reply: Reply) -> None:
    assert (reply.status, reply.json()) == (401, VAGUE), reply.body


def _flip_last(key: str) -> str:
    return key[:-1] + ("A" if key[-1] != "A" else "B")


@pytest.mark.parametrize(
    "mangle",
    [
        pytest.param(_flip_last, id="bad-checksum"),
        pytest.param(lambda k: k[:10] + _flip_last(k[10:16]) + k[16:], id="changed-secret-same-checksum"),
        pytest.param(lambda k: "sk_wx_" + k[6:], id="wrong-prefix"),
        pytest.param(lambda k: "SK_WS_" + k[6:], id="upper-prefix"),
        pytest.param(lambda k: "pk_ws_" + k[6:], id="publishable-prefix"),
        pytest.param(lambda k: k[6:], id="no-prefix"),
        pytest.param(lambda k: k[:-1], id="one-short"),
        pytest.param(lambda k: k + "0", id="one-long"),
        pytest.param(lambda k: k.upper(), id="upper-case"),
        pytest.param(lambda k: k[:6] + k[6:].swapcase(), id="swapped-case"),
        pytest.param(lambda k: k[:20] + " " + k[20:], id="inner-space"),
        pytest.param(lambda k: k[:20] + "%20" + k[20:], id="percent-encoded"),
        pytest.param(lambda k: k.replace("_", "-"), id="dashes"),
        pytest.param(lambda k: "sk_ws_" + "0" * 49, id="zeros"),
    ],
)
def test_malformed_or_forged_keys_get_the_vague_401(service: LocalService, mangle) -> None:
    assert_vague_401(whoami(service, f"Bearer {mangle(demo(service)[0]['key'])}"))


def test_a_well_formed_unknown_key_gets_the_same_vague_401(service: LocalService) -> None:
    unknown = generate()
    assert is_well_formed(unknown)
    assert_vague_401(whoami(service, f"Bearer {unknown}"))


@pytest.mark.parametrize(
    "header",
    [
        pytest.param("{key}", id="scheme-missing"),
        pytest.param("Basic {key}", id="basic-scheme"),
        pytest.param("Token {key}", id="token-scheme"),
        pytest.param("Bearer", id="scheme-only"),
        pytest.param("Bearer ", id="scheme-and-space"),
        pytest.param("", id="empty"),
        pytest.param("Bearer\t{key}", id="tab-separator"),
        pytest.param("Bearer:{key}", id="colon-separator"),
        pytest.param("Bearer {key}, Bearer {other}", id="two-credentials-in-one-line"),
        pytest.param("Bearer {key} {other}", id="two-tokens"),
    ],
)
def test_malformed_authorization_headers_get_the_vague_401(service: LocalService, header: str) -> None:
    first, second = demo(service)
    assert_vague_401(whoami(service, header.format(key=first["key"], other=second["key"])))


def test_no_authorization_header_gets_the_vague_401(service: LocalService) -> None:
    assert_vague_401(whoami(service))


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "bEaReR"])
def test_the_scheme_is_case_insensitive(service: LocalService, scheme: str) -> None:
    """RFC 9110 §11.1: the auth-scheme is case-insensitive; only the credential is exact."""
    first, _ = demo(service)
    reply = whoami(service, f"{scheme} {first['key']}")
    assert reply.status == 200 and reply.json()["workspaceId"] == first["id"]


@pytest.mark.parametrize("order", ["a-then-b", "b-then-a", "unknown-then-a"])
def test_two_authorization_headers_are_refused(service: LocalService, order: str) -> None:
    """Two credentials are ambiguous: which one wins must not depend on which line a proxy keeps (issue 11, 4)."""
    first, second = demo(service)
    keys = {"a-then-b": [first["key"], second["key"]], "b-then-a": [second["key"], first["key"]],
            "unknown-then-a": [generate(), first["key"]]}[order]  # fmt: skip
    assert_vague_401(whoami(service, *(f"Bearer {k}" for k in keys)))


def test_two_portal_authorization_headers_are_refused(service: LocalService, cast: Cast) -> None:
    both = [("Authorization", f"Bearer {cast.owner_b.jwt}"), ("Authorization", f"Bearer {cast.owner_a.jwt}")]
    reply = send(service, service.portal, "GET", "/api/user/account", both)
    assert (reply.status, reply.json()["code"]) == (401, "UNAUTHORIZED")


def test_revoked_and_deleted_workspace_keys_stop_at_once(service: LocalService, cast: Cast) -> None:
    """A key revoked in the portal, and a live key of a workspace the owner deletes, are refused on the next call."""
    owner = cast.owner_a  # plan pro: may create a workspace and mint keys
    created = portal(service, "POST", "/api/workspaces", owner.jwt, {"name": "Attack throwaway"})
    assert created.status == 201, created.body
    workspace = created.json()["workspace"]["id"]
    minted = [portal(service, "POST", f"/api/workspaces/{workspace}/keys", owner.jwt, {"name": n}) for n in "ab"]
    assert [m.status for m in minted] == [201, 201]
    revoked, kept = (m.json()["key"] for m in minted)
    for key in (revoked, kept):
        assert whoami(service, f"Bearer {key['key']}").json()["workspaceId"] == workspace

    gone = portal(service, "DELETE", f"/api/workspaces/{workspace}/keys/{revoked['id']}", owner.jwt)
    assert (gone.status, gone.json()) == (200, {})
    assert_vague_401(whoami(service, f"Bearer {revoked['key']}"))
    assert whoami(service, f"Bearer {kept['key']}").status == 200

    deleted = portal(service, "DELETE", f"/api/workspaces/{workspace}", owner.jwt)
    assert (deleted.status, deleted.json()) == (200, {"deleted": True})
    for key in (kept, revoked):
        assert_vague_401(whoami(service, f"Bearer {key['key']}"))
        auth = [("Authorization", f"Bearer {key['key']}")]
        assert_vague_401(send(service, service.brain, "GET", "/v1/r2/public/hello.txt", auth))
    # Revoking it again after the delete does not bring anything back either.
    assert portal(service, "DELETE", f"/api/workspaces/{workspace}/keys/{kept['id']}", owner.jwt).status == 404
    assert_vague_401(whoami(service, f"Bearer {kept['key']}"))


def test_a_portal_jwt_is_not_a_workspace_key(service: LocalService, cast: Cast) -> None:
    assert_vague_401(whoami(service, f"Bearer {cast.owner_a.jwt}"))
