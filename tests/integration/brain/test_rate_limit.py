"""Per-key rate limit over every read-plane call (decisions.md): 429 RATE_LIMITED with Retry-After and RateLimit-*.

The limit holds in every rolling minute (60 one-second buckets, the oldest partly covered one
counted whole): a request is remembered until the start of the 61st second after its own.
"""

from __future__ import annotations

from core.keys.key_format import hash_key
from core.platform.dynamo import from_item
from local.gateway.events import SAMPLE_KEY
from tests.integration.conftest import WINDOW_START, Clock
from tests.support.brain import RFC3339_MS, call, error_of, ok_json
from tests.support.lambdas import stack
from tests.support.seed import Seeder

WHOAMI = "BrainWhoAmIFunction"
RATE_LIMITED = {"error": "Rate limit exceeded", "code": "RATE_LIMITED"}


def rate_headers(result) -> tuple[str | None, ...]:
    return tuple(result.header(h) for h in ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"))


def key_record(aws, raw: str) -> dict:
    item = aws.dynamodb.get_item(TableName=stack().physical_name("ApiKeysTable"), Key={"keyHash": {"S": hash_key(raw)}})
    return from_item(item["Item"])


def test_fourth_request_in_the_window_is_429(tenant, seed: Seeder, clock: Clock) -> None:
    key = seed.api_key(tenant.ws.id, rate_limit=3)
    clock.now = WINDOW_START + 15.2
    seen = [rate_headers(call(WHOAMI, key=key)) for _ in range(3)]
    # Remaining goes up when the second W+15 leaves the window: at W+76, 60.8 s away.
    assert seen == [("3", "2", "61"), ("3", "1", "61"), ("3", "0", "61")]
    refused = call(WHOAMI, key=key)
    assert error_of(refused) == (429, RATE_LIMITED)
    assert rate_headers(refused) == ("3", "0", "61")
    assert refused.header("Retry-After") == "61"
    assert refused.header("Access-Control-Allow-Origin") == "*"
    assert "Retry-After" in (refused.header("Access-Control-Expose-Headers") or "")


def test_retry_after_is_exact_whole_seconds_and_at_least_one(tenant, seed: Seeder, clock: Clock) -> None:
    key = seed.api_key(tenant.ws.id, rate_limit=1)
    clock.now = WINDOW_START + 59.95
    assert call(WHOAMI, key=key).status == 200
    refused = call(WHOAMI, key=key)
    assert refused.status == 429
    assert refused.header("Retry-After") == refused.header("RateLimit-Reset") == "61"
    clock.now += 60  # one second short: still refused, and now told to come back in one
    refused = call(WHOAMI, key=key)
    assert refused.status == 429
    assert refused.header("Retry-After") == refused.header("RateLimit-Reset") == "1"
    clock.now += 1
    assert call(WHOAMI, key=key).status == 200


def test_the_limit_spans_every_read_plane_function(tenant, seed: Seeder, clock: Clock) -> None:
    key = seed.api_key(tenant.ws.id, rate_limit=3)
    for function in ("BrainAgentFunction", "BrainFeedFunction", "BrainWrapFunction"):
        assert call(function, key=key).status == 200
    for function in ("BrainItemsFunction", "BrainSiteFunction", "BrainSuggestionsFunction", WHOAMI):
        assert error_of(call(function, key=key)) == (429, RATE_LIMITED)


def test_refused_requests_are_not_counted_and_requests_leave_the_window(tenant, seed: Seeder, clock: Clock) -> None:
    key = seed.api_key(tenant.ws.id, rate_limit=2)
    results = [call(WHOAMI, key=key).status for _ in range(5)]
    assert results == [200, 200, 429, 429, 429]
    clock.now = WINDOW_START + 60  # the second W+0 is partly in (W, W+60]: counted whole
    assert call(WHOAMI, key=key).status == 429
    clock.now = WINDOW_START + 61
    assert rate_headers(call(WHOAMI, key=key)) == ("2", "1", "61")


def test_other_keys_are_unaffected(tenant, rival, seed: Seeder, clock: Clock) -> None:
    limited = seed.api_key(tenant.ws.id, rate_limit=1)
    sibling = seed.api_key(tenant.ws.id, rate_limit=1)
    assert [call(WHOAMI, key=limited).status for _ in range(2)] == [200, 429]
    assert rate_headers(call(WHOAMI, key=sibling)) == ("1", "0", "61")
    assert rate_headers(call(WHOAMI, key=rival.key)) == ("600", "599", "61")
    assert rate_headers(call(WHOAMI)) == ("600", "599", "61")


def test_unset_rate_limit_means_600_per_minute(tenant, aws, clock: Clock) -> None:
    assert "rateLimit" not in key_record(aws, SAMPLE_KEY)
    for n in range(1, 4):
        assert rate_headers(call(WHOAMI)) == ("600", str(600 - n), "61")


def test_default_limit_with_the_real_clock(tenant) -> None:
    """No patched clock: what deps wires up is what the handlers use."""
    result = call(WHOAMI)
    limit, remaining, reset = rate_headers(result)
    assert (limit, remaining) == ("600", "599") and 60 <= int(reset or 0) <= 61
    assert ok_json(result)["workspaceId"] == tenant.ws.id


def test_refused_credentials_are_not_rate_limited_responses(tenant, clock: Clock) -> None:
    result = call(WHOAMI, headers={"Authorization": None})
    assert result.status == 401 and result.header("Retry-After") is None


def test_last_used_at_is_written_once_per_minute(tenant, aws, clock: Clock) -> None:
    assert "lastUsedAt" not in key_record(aws, SAMPLE_KEY)
    assert call(WHOAMI).status == 200
    first = key_record(aws, SAMPLE_KEY)["lastUsedAt"]
    assert RFC3339_MS.match(first)
    table = stack().physical_name("ApiKeysTable")
    aws.dynamodb.update_item(
        TableName=table,
        Key={"keyHash": {"S": hash_key(SAMPLE_KEY)}},
        UpdateExpression="SET lastUsedAt = :old",
        ExpressionAttributeValues={":old": {"S": "2000-01-01T00:00:00.000Z"}},
    )
    clock.now += 30
    assert call(WHOAMI).status == 200  # same minute, another bucket: no write
    assert key_record(aws, SAMPLE_KEY)["lastUsedAt"] == "2000-01-01T00:00:00.000Z"
    clock.now += 30
    assert call(WHOAMI).status == 200  # first request of the next minute: written again
    assert key_record(aws, SAMPLE_KEY)["lastUsedAt"] >= first
