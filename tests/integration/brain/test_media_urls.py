"""POST /v1/media-urls and the URLs it signs, served by GET|HEAD /v1/r2 with no Authorization (moto)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from core.objects import signing as media_signing
from core.platform.settings import get_settings
from local.gateway.events import SAMPLE_API_KEY_ID, SAMPLE_WORKSPACE_ID
from tests.integration.conftest import WINDOW_START, Clock
from tests.support.lambdas import invoke, sample_event
from tests.support.signed_urls import MEDIA_URLS, ask, fetch, sign, split

LOGO = "assets/logo.png"
CLIP = "projects/prj_1/media/clip.mp4"
DATA = bytes(range(256)) * 40  # 10,240 bytes


@pytest.fixture
def objects(tenant, aws, as_function, clock: Clock) -> dict[str, str]:
    """The sample tenant's logo and clip, with the environment the template gives the two functions."""
    as_function("BrainR2Function")
    bucket = get_settings().content_bucket
    etags = {}
    for path, body, kind in ((LOGO, b"\x89PNG-logo", "image/png"), (CLIP, DATA, "video/mp4")):
        key = f"workspaces/{SAMPLE_WORKSPACE_ID}/{path}"
        put = aws.s3.put_object(Bucket=bucket, Key=key, Body=body, ContentType=kind)
        etags[path] = put["ETag"]
    return etags


def test_urls_come_back_in_request_order_absolute_with_their_expiry(objects, tenant) -> None:
    result = ask(tenant.key, {"paths": [CLIP, LOGO, "media/not there.jpg"]})
    assert result.status == 200, result.body
    assert result.header("Access-Control-Allow-Origin") == "*" and result.header("RateLimit-Limit") == "600"
    urls = result.json()["urls"]
    assert [u["path"] for u in urls] == [CLIP, LOGO, "media/not there.jpg"]
    expires = int(WINDOW_START) + media_signing.DEFAULT_SECONDS
    for entry in urls:
        assert set(entry) == {"path", "url", "expiresAt"}
        assert entry["expiresAt"] == datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        _, query = split(entry["url"])
        assert entry["url"].startswith("http://localhost/v1/r2/")  # the sample's Host, no proxy header
        assert query["expires"] == str(expires) and query["kid"] == SAMPLE_API_KEY_ID
        assert set(query) == {"expires", "kid", "sig"} and tenant.key not in entry["url"]
    assert split(urls[2]["url"])[0] == "/v1/r2/media/not%20there.jpg"


@pytest.mark.parametrize(
    ("headers", "context", "base"),
    [
        ({"Host": "abc123.execute-api.eu-west-1.amazonaws.com", "X-Forwarded-Proto": "https"}, {"stage": "live"},
         "https://abc123.execute-api.eu-west-1.amazonaws.com/live"),
        ({"Host": "api.brand.example", "X-Forwarded-Proto": "https"}, {"stage": "live"}, "https://api.brand.example"),
        ({"Host": "127.0.0.1:3001"}, {"stage": "live"}, "http://127.0.0.1:3001"),
        ({"Host": "evil.example/x?y", "X-Forwarded-Proto": "https"}, {"stage": "live", "domainName": "d.example"},
         "https://d.example"),
    ],
)  # fmt: skip
def test_the_base_is_the_requests_scheme_host_and_stage(objects, tenant, headers, context, base) -> None:
    event = sample_event(MEDIA_URLS)
    event["headers"] = {k: v for k, v in event["headers"].items() if k != "Host"} | headers
    event["requestContext"] |= context
    result = invoke(MEDIA_URLS, event)
    assert result.json()["urls"][0]["url"].startswith(f"{base}/v1/r2/assets/logo.png?expires=")


def test_the_sample_event_signs_its_two_paths(objects) -> None:
    result = invoke(MEDIA_URLS, sample_event(MEDIA_URLS))
    assert result.status == 200 and len(result.json()["urls"]) == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"paths": []}, "paths"),
        ({"paths": [LOGO] * 51}, "paths"),
        ({}, "paths"),
        ({"paths": LOGO}, "paths"),
        ({"paths": [7]}, "paths.0"),
        ({"paths": [LOGO], "expiresIn": 59}, "expiresIn"),
        ({"paths": [LOGO], "expiresIn": 3601}, "expiresIn"),
        ({"paths": [LOGO], "expiresIn": "900"}, "expiresIn"),
        ({"paths": [LOGO], "expiresIn": 90.5}, "expiresIn"),
        ({"paths": [LOGO], "expiresIn": True}, "expiresIn"),
        ({"paths": [LOGO], "extra": 1}, "extra"),
    ],
)
def test_batch_limits_and_types_are_400(objects, tenant, body: dict[str, Any], field: str) -> None:
    result = ask(tenant.key, body)
    assert result.status == 400 and result.json()["code"] == "VALIDATION_ERROR", result.body
    assert result.json()["error"].startswith(f"{field}:")


def test_fifty_paths_and_both_expiry_bounds_are_accepted(objects, tenant) -> None:
    assert len(sign(tenant.key, *[f"assets/{i}.png" for i in range(50)])) == 50
    for seconds in (60, 3600):
        _, query = split(sign(tenant.key, LOGO, expires_in=seconds)[0])
        assert int(query["expires"]) == int(WINDOW_START) + seconds


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("../ws_other/assets/a.png", 400, "INVALID_PATH"),
        ("/assets/a.png", 400, "INVALID_PATH"),
        ("assets//a.png", 400, "INVALID_PATH"),
        ("assets/a\\b.png", 400, "INVALID_PATH"),
        ("assets/a\u0000.png", 400, "INVALID_PATH"),
        ("assets/\ud800.png", 400, "VALIDATION_ERROR"),  # an unpaired surrogate: the JSON body itself is refused
        ("conversations/thr_1.json", 403, "PREFIX_NOT_ALLOWED"),
        ("secrets.txt", 403, "PREFIX_NOT_ALLOWED"),
    ],
)
def test_one_bad_path_refuses_the_whole_request(objects, tenant, path: str, status: int, code: str) -> None:
    result = ask(tenant.key, {"paths": [LOGO, path]})
    assert (result.status, result.json()["code"]) == (status, code), result.body
    if code != "VALIDATION_ERROR":
        assert result.json()["error"].startswith("paths.1:")


def test_without_a_key_it_is_401(objects) -> None:
    result = ask(None, {"paths": [LOGO]})
    assert (result.status, result.json()["code"]) == (401, "UNAUTHORIZED")


def test_a_signed_url_serves_the_object_without_a_header(objects, tenant, clock: Clock) -> None:
    url = sign(tenant.key, LOGO)[0]
    clock.now += 100
    result = fetch(url)
    assert (result.status, result.body, result.header("Content-Type")) == (200, b"\x89PNG-logo", "image/png")
    assert result.header("ETag") == objects[LOGO]
    # Never cached past the URL's life: private, at most the seconds left (900 - 100).
    assert result.header("Cache-Control") == "private, max-age=800"
    assert result.header("RateLimit-Limit") == "600"


def test_range_head_and_etag_work_on_a_signed_url(objects, tenant) -> None:
    url = sign(tenant.key, CLIP)[0]
    part = fetch(url, headers={"Range": "bytes=100-199"})
    assert (part.status, part.header("Content-Range"), part.body) == (206, "bytes 100-199/10240", DATA[100:200])
    head = fetch(url, method="HEAD")
    assert (head.status, head.body, head.header("Content-Length")) == (200, b"", "10240")
    same = fetch(url, headers={"If-None-Match": objects[CLIP]})
    assert (same.status, same.body, same.header("ETag")) == (304, b"", objects[CLIP])
    assert same.header("Cache-Control") == "private, max-age=900"
    stale = fetch(url, headers={"Range": "bytes=0-9", "If-Range": '"other"'})
    assert (stale.status, stale.body) == (200, DATA)


def test_an_objects_own_cache_control_is_capped_too(objects, tenant, aws) -> None:
    key = f"workspaces/{SAMPLE_WORKSPACE_ID}/public/app.js"
    aws.s3.put_object(Bucket=get_settings().content_bucket, Key=key, Body=b"js", CacheControl="public, max-age=60")
    assert fetch(sign(tenant.key, "public/app.js")[0]).header("Cache-Control") == "private, max-age=60"
    aws.s3.put_object(Bucket=get_settings().content_bucket, Key=key, Body=b"js", CacheControl="no-store")
    assert fetch(sign(tenant.key, "public/app.js")[0]).header("Cache-Control") == "no-store"


def test_a_missing_object_is_404_when_fetched(objects, tenant) -> None:
    result = fetch(sign(tenant.key, "media/not-there.jpg")[0])
    assert (result.status, result.json()["code"]) == (404, "NOT_FOUND")


def test_an_authorization_header_wins_over_the_signature(objects, tenant, rival) -> None:
    """Header and signature together: a keyed request (the signature is not even read)."""
    url = sign(tenant.key, LOGO)[0]
    _, query = split(url)
    keyed = fetch(url, headers={"Authorization": f"Bearer {tenant.key}"})
    assert keyed.status == 200 and keyed.header("Cache-Control") == "private, max-age=3600"  # the keyed default
    rivals = fetch(url, headers={"Authorization": f"Bearer {rival.key}"})  # the rival's workspace has no logo
    assert (rivals.status, rivals.json()["code"]) == (404, "NOT_FOUND")
    broken = fetch(url.replace(query["sig"], "A" * 43), headers={"Authorization": f"Bearer {tenant.key}"})
    assert broken.status == 200


def test_signed_requests_count_against_the_signing_keys_limit(objects, seed, tenant) -> None:
    limited = seed.api_key(tenant.ws.id, rate_limit=3)
    url = sign(limited, LOGO)[0]  # 1
    assert [fetch(url).status for _ in range(3)] == [200, 200, 429]  # 2, 3, then refused
    refused = fetch(url)
    assert refused.json()["code"] == "RATE_LIMITED" and refused.header("Retry-After")
    assert fetch(sign(tenant.key, LOGO)[0]).status == 200  # another key's budget is its own


def test_the_key_id_lookup_is_cached_and_revocation_still_seen(objects, seed, tenant, aws) -> None:
    """The id -> hash mapping never changes, so it is cached; liveness is read on every request."""
    from core.keys import providers as keys_providers

    calls: list[str] = []
    repo = keys_providers.store()
    original = repo.hash_of

    def recorded(key_id: str) -> str | None:
        calls.append(key_id)
        return original(key_id)

    repo.hash_of = recorded  # type: ignore[method-assign]
    url = sign(tenant.key, LOGO)[0]
    assert [fetch(url).status for _ in range(3)] == [200, 200, 200]
    assert calls == [SAMPLE_API_KEY_ID]
    repo.revoke(_hash(tenant.key), "2027-01-01T00:00:00.000Z")
    assert fetch(url).json()["code"] == "SIGNED_URL_INVALID"


def _hash(key: str) -> str:
    from core.keys.key_format import hash_key

    return hash_key(key)
