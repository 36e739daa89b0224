"""GET /v1/agent/_whoami: which workspace and key a bearer resolves to; every bad credential is one vague 401."""

from __future__ import annotations

import pytest

from core.identity import portal_jwt
from core.keys.key_format import generate, hash_key
from local.gateway.events import SAMPLE_API_KEY_ID, SAMPLE_KEY, SAMPLE_WORKSPACE_ID
from tests.support.brain import UNAUTHORIZED, call, error_of, ok_json
from tests.support.lambdas import invoke, sample_event
from tests.support.lambdas import stack as template_stack
from tests.support.seed import Seeder

WHOAMI = "BrainWhoAmIFunction"


def test_sample_event_resolves_the_sample_key(tenant) -> None:
    result = invoke(WHOAMI, sample_event(WHOAMI))
    assert ok_json(result) == {"workspaceId": SAMPLE_WORKSPACE_ID, "apiKeyId": SAMPLE_API_KEY_ID}
    assert result.header("RateLimit-Limit") == "600"
    assert result.header("RateLimit-Remaining") == "599"
    assert 60 <= int(result.header("RateLimit-Reset") or "0") <= 61  # the one request leaves the window in 60-61 s
    assert "RateLimit-Remaining" in (result.header("Access-Control-Expose-Headers") or "")


def test_each_key_resolves_to_its_own_workspace(tenant, rival, seed: Seeder) -> None:
    second = seed.api_key(tenant.ws.id, key_id="key_second")
    assert ok_json(call(WHOAMI, key=rival.key))["workspaceId"] == rival.ws.id
    assert ok_json(call(WHOAMI, key=second)) == {"workspaceId": SAMPLE_WORKSPACE_ID, "apiKeyId": "key_second"}


@pytest.mark.parametrize(
    ("name", "value"),
    [("authorization", f"Bearer {SAMPLE_KEY}"), ("AUTHORIZATION", f"bearer {SAMPLE_KEY}")],
)
def test_header_name_and_scheme_are_case_insensitive(tenant, name: str, value: str) -> None:
    result = call(WHOAMI, headers={"Authorization": None, name: value})
    assert ok_json(result)["apiKeyId"] == SAMPLE_API_KEY_ID


_JWT = portal_jwt.issue(b"s" * 32, "usr_01JD0SAMPLE0USER000000000", "ses_01JD0SAMPLE0SESSION000000")
REFUSED = {
    "missing": None,
    "empty": "",
    "basic scheme": f"Basic {SAMPLE_KEY}",
    "token scheme": f"Token {SAMPLE_KEY}",
    "no scheme": SAMPLE_KEY,
    "bearer without credential": "Bearer ",
    "bad checksum": f"Bearer {SAMPLE_KEY[:-1]}{'A' if SAMPLE_KEY[-1] != 'A' else 'B'}",
    "truncated": f"Bearer {SAMPLE_KEY[:-2]}",
    "wrong prefix": f"Bearer sk_xx_{SAMPLE_KEY[6:]}",
    "not base62": f"Bearer sk_ws_{'-' * 43}000000",
    "well-formed but unknown": f"Bearer {generate(bytes(32))}",
    "portal jwt": f"Bearer {_JWT}",
}


@pytest.mark.parametrize("authorization", REFUSED.values(), ids=REFUSED.keys())
def test_every_bad_credential_gets_the_same_vague_401(tenant, authorization: str | None) -> None:
    result = call(WHOAMI, headers={"Authorization": authorization})
    assert error_of(result) == (401, UNAUTHORIZED)
    assert result.header("Access-Control-Allow-Origin") == "*"
    assert result.header("RateLimit-Limit") is None


def test_portal_jwt_is_a_real_token_of_the_management_plane() -> None:
    """The refused JWT above is not garbage: it verifies with its own secret."""
    claims = portal_jwt.verify(_JWT, b"s" * 32)
    assert claims.user_id == "usr_01JD0SAMPLE0USER000000000"


def test_revoked_key_is_refused(tenant, seed: Seeder) -> None:
    revoked = seed.api_key(tenant.ws.id, revoked=True)
    assert error_of(call(WHOAMI, key=revoked)) == (401, UNAUTHORIZED)


def test_key_revoked_after_use_is_refused_on_its_next_request(tenant, aws) -> None:
    assert call(WHOAMI).status == 200
    aws.dynamodb.update_item(
        TableName=template_stack().physical_name("ApiKeysTable"),
        Key={"keyHash": {"S": hash_key(SAMPLE_KEY)}},
        UpdateExpression="SET revokedAt = :at",
        ExpressionAttributeValues={":at": {"S": "2026-01-01T00:00:00.000Z"}},
    )
    assert error_of(call(WHOAMI)) == (401, UNAUTHORIZED)


@pytest.mark.parametrize("function", ["BrainAgentFunction", "BrainFeedFunction", "BrainSuggestionsFunction"])
def test_other_read_plane_functions_refuse_the_same_way(tenant, function: str) -> None:
    assert error_of(call(function, headers={"Authorization": None})) == (401, UNAUTHORIZED)
    assert error_of(call(function, headers={"Authorization": f"Bearer {_JWT}"})) == (401, UNAUTHORIZED)
