"""Every authenticated portal endpoint refuses every bad credential with 401 (and the right code), doing nothing."""

from __future__ import annotations

import base64
import json
import os
import time

import jwt
import pytest

from core.identity import portal_jwt
from local.gateway.events import SAMPLE_KEY
from tests.support.idp import forge
from tests.support.portal import Portal, Session, assert_error

PROTECTED = [
    "PortalRefreshFunction",
    "PortalAccountFunction",
    "PortalWorkspacesListFunction",
    "PortalWorkspacesCreateFunction",
    "PortalWorkspaceGetFunction",
    "PortalWorkspaceDeleteFunction",
    "PortalMembersListFunction",
    "PortalBrandsListFunction",
    "PortalKeysListFunction",
    "PortalKeysMintFunction",
    "PortalKeyRevokeFunction",
]
BODIES = {"PortalWorkspacesCreateFunction": {"name": "Sneaky"}, "PortalKeysMintFunction": {"name": "sneaky"}}


def _secret(portal: Portal) -> bytes:
    return portal.aws.secrets.get_secret_value(SecretId=os.environ["PORTAL_JWT_SECRET_ID"])["SecretString"].encode()


def _bad_credentials(portal: Portal, session: Session, api_key: str) -> dict[str, tuple[dict, str]]:
    """name → (headers, expected code)."""
    secret = _secret(portal)
    claims = jwt.decode(session.token, options={"verify_signature": False})
    head, payload, signature = session.token.split(".")
    flipped = signature[:-2] + ("AA" if signature[-2:] != "AA" else "BB")
    more = base64.urlsafe_b64encode(json.dumps(claims | {"sub": "usr_someone_else"}).encode()).rstrip(b"=").decode()
    now = int(time.time())

    def signed(changes: dict, key: bytes = secret, alg: str = "HS256") -> str:
        return jwt.encode(claims | changes, key, algorithm=alg)

    cases = {
        "missing bearer": None,
        "empty bearer": "",
        "garbage": "garbage",
        "three garbage segments": "a.b.c",
        "tampered signature": f"{head}.{payload}.{flipped}",
        "tampered payload": f"{head}.{more}.{signature}",
        "alg none": forge({"alg": "none", "typ": "JWT"}, claims, None),
        "alg none, empty signature kept": forge({"alg": "none"}, claims, None).rstrip("."),
        "HS512 with the real secret": signed({}, alg="HS512"),
        "another secret": signed({}, key=b"x" * 64),
        "wrong audience": signed({"aud": "other-api"}),
        "wrong issuer": signed({"iss": "someone-else"}),
        "no sid": jwt.encode({k: v for k, v in claims.items() if k != "sid"}, secret, algorithm="HS256"),
        "no jti": jwt.encode({k: v for k, v in claims.items() if k != "jti"}, secret, algorithm="HS256"),
        "session never existed": signed({"sid": "ses_01JNOSUCHSESSION0000000000"}),
        "other user, real session": signed({"sub": "usr_01JSOMEONEELSE00000000000"}),
        "issued in the future": signed({"iat": now + 3600, "exp": now + 7200}),
        "workspace API key": api_key,
        "sample workspace key": SAMPLE_KEY,
    }
    expired = portal_jwt.issue(secret, session.user_id, claims["sid"], now=now - 3601)
    out = {name: ({"Authorization": f"Bearer {v}" if v is not None else None}, "UNAUTHORIZED") for name, v in
           cases.items()}  # fmt: skip
    out["Basic scheme"] = ({"Authorization": f"Basic {session.token}"}, "UNAUTHORIZED")
    out["cookie instead of bearer"] = ({"Authorization": None, "Cookie": session.cookie}, "UNAUTHORIZED")
    out["expired"] = ({"Authorization": f"Bearer {expired}"}, "TOKEN_EXPIRED")
    return out


@pytest.mark.parametrize("function", PROTECTED)
def test_bad_credentials_are_refused(portal: Portal, function: str) -> None:
    owner = portal.sign_in("owner@example.com", plan="pro")
    workspace = portal.create_workspace(owner)
    key = portal.mint_key(owner, workspace["id"])
    params = {"workspaceId": workspace["id"], "keyId": key["id"]}
    mismatches = {}
    for name, (headers, code) in _bad_credentials(portal, owner, key["key"]).items():
        result = portal.call(function, params=params, headers=headers, body=BODIES.get(function))
        body = result.json()
        if (result.status, body.get("code"), set(body)) != (401, code, {"error", "code"}):
            mismatches[name] = (result.status, result.body)
    assert mismatches == {}
    # nothing happened: the workspace and its key are intact, nothing new was created
    listed = portal.call("PortalWorkspacesListFunction", token=owner.token).json()
    assert [w["id"] for w in listed] == [workspace["id"]]
    keys = portal.call("PortalKeysListFunction", token=owner.token, params=params).json()["keys"]
    assert [(k["id"], k["revokedAt"]) for k in keys] == [(key["id"], None)]


def test_the_error_body_of_an_expired_token_tells_the_client_to_refresh(portal: Portal) -> None:
    session = portal.sign_in("late@example.com")
    sid = jwt.decode(session.token, options={"verify_signature": False})["sid"]
    expired = portal_jwt.issue(_secret(portal), session.user_id, sid, now=int(time.time()) - 3601)
    assert_error(portal.call("PortalAccountFunction", token=expired), 401, "TOKEN_EXPIRED")
    assert_error(portal.call("PortalRefreshFunction", token=expired), 401, "TOKEN_EXPIRED")


def test_a_token_just_before_expiry_still_works(portal: Portal) -> None:
    session = portal.sign_in("nearly@example.com")
    sid = jwt.decode(session.token, options={"verify_signature": False})["sid"]
    nearly = portal_jwt.issue(_secret(portal), session.user_id, sid, now=int(time.time()) - 3500)
    assert portal.call("PortalAccountFunction", token=nearly).status == 200


def test_a_portal_jwt_does_not_work_on_the_read_plane(portal: Portal) -> None:
    session = portal.sign_in("cross@example.com")
    assert_error(portal.whoami(session.token), 401, "UNAUTHORIZED")
