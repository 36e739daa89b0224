"""GET|HEAD /v1/r2/{path+} through its handler (events/BrainR2Function.json, moto S3), drained as the runtime does."""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.settings import get_settings
from local.events import SAMPLE_WORKSPACE_ID
from tests.integration.helpers import JSON, UNAUTHORIZED
from tests.support.lambdas import StreamedResult, invoke_streamed, sample_event, with_request

R2 = "BrainR2Function"
DATA = bytes(range(256)) * 1200  # 307,200 bytes: three chunks of at most 128 KiB
HTTP_DATE = re.compile(r"^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$")


def put(aws: Any, workspace_id: str, path: str, body: bytes, **extra: Any) -> str:
    result = aws.s3.put_object(
        Bucket=get_settings().content_bucket, Key=f"workspaces/{workspace_id}/{path}", Body=body, **extra
    )
    return result["ETag"]


def get(path: str | None = None, *, raw_path: str | None = None, read: int | None = None, **changes: Any):
    event = with_request(sample_event(R2), path_parameters={"path": path} if path else None, **changes)
    if raw_path is not None:  # exactly as the client sent it: API Gateway keeps it percent-encoded
        event["path"] = raw_path
    return invoke_streamed(R2, event, read=read)


def assert_error(result: StreamedResult, status: int, code: str) -> dict[str, Any]:
    assert (result.status, result.header("Content-Type")) == (status, JSON), result.body
    body = result.json()
    assert body["code"] == code and set(body) == {"error", "code"}
    return body


@pytest.fixture
def video(tenant, aws) -> str:
    return put(aws, SAMPLE_WORKSPACE_ID, "projects/prj_1/media/clip.mp4", DATA, ContentType="video/mp4")


def test_the_whole_object_streams_in_chunks_with_media_headers(video: str) -> None:
    result = get("projects/prj_1/media/clip.mp4")
    assert result.status == 200
    assert result.body == DATA and [len(c) for c in result.chunks] == [131072, 131072, 45056]
    assert result.header("Content-Type") == "video/mp4"
    assert result.header("Content-Length") == str(len(DATA))
    assert result.header("ETag") == video
    assert HTTP_DATE.match(result.header("Last-Modified"))
    assert result.header("Cache-Control") == "private, max-age=3600"
    assert result.header("Accept-Ranges") == "bytes"
    assert result.header("Content-Range") is None
    assert result.header("Access-Control-Allow-Origin") == "*"
    assert result.header("RateLimit-Limit") == "600"


def test_the_sample_event_reads_the_workspace_logo(tenant, aws) -> None:
    put(aws, SAMPLE_WORKSPACE_ID, "assets/logo.png", b"\x89PNG-logo", ContentType="image/png")
    result = invoke_streamed(R2, sample_event(R2))
    assert (result.status, result.body, result.header("Content-Type")) == (200, b"\x89PNG-logo", "image/png")


def test_an_objects_own_cache_control_wins(tenant, aws) -> None:
    put(aws, SAMPLE_WORKSPACE_ID, "public/v1/app.js", b"js", CacheControl="public, max-age=31536000, immutable")
    assert get("public/v1/app.js").header("Cache-Control") == "public, max-age=31536000, immutable"


@pytest.mark.parametrize(
    ("header", "content_range", "part"),
    [
        ("bytes=0-99", "bytes 0-99/307200", DATA[:100]),
        ("bytes=307000-", "bytes 307000-307199/307200", DATA[307000:]),
        ("bytes=-10", "bytes 307190-307199/307200", DATA[-10:]),
        ("bytes=307100-999999", "bytes 307100-307199/307200", DATA[307100:]),
        ("bytes=5-5", "bytes 5-5/307200", DATA[5:6]),
    ],
)
def test_a_single_range_is_206(video: str, header: str, content_range: str, part: bytes) -> None:
    result = get("projects/prj_1/media/clip.mp4", headers={"Range": header})
    assert (result.status, result.header("Content-Range"), result.body) == (206, content_range, part)
    assert result.header("Content-Length") == str(len(part))
    assert (result.header("Accept-Ranges"), result.header("ETag")) == ("bytes", video)


@pytest.mark.parametrize("header", ["bytes=307200-", "bytes=400000-500000", "bytes=-0"])
def test_an_unsatisfiable_range_is_416(video: str, header: str) -> None:
    result = get("projects/prj_1/media/clip.mp4", headers={"Range": header})
    assert_error(result, 416, "RANGE_NOT_SATISFIABLE")
    assert result.header("Content-Range") == "bytes */307200"


@pytest.mark.parametrize("header", ["bytes=0-1,5-6", "bytes=9-2", "pages=1-2", "bytes=x-"])
def test_other_range_headers_are_ignored(video: str, header: str) -> None:
    result = get("projects/prj_1/media/clip.mp4", headers={"Range": header})
    assert (result.status, result.body, result.header("Content-Range")) == (200, DATA, None)


def test_if_none_match_is_304_with_etag_and_cache_control(video: str) -> None:
    result = get("projects/prj_1/media/clip.mp4", headers={"If-None-Match": video})
    assert (result.status, result.body) == (304, b"")
    assert (result.header("ETag"), result.header("Cache-Control")) == (video, "private, max-age=3600")
    changed = get("projects/prj_1/media/clip.mp4", headers={"If-None-Match": '"another"'})
    assert (changed.status, changed.body) == (200, DATA)


def test_head_sends_the_headers_only(video: str) -> None:
    result = get("projects/prj_1/media/clip.mp4", method="HEAD")
    assert (result.status, result.chunks) == (200, [])
    assert (result.header("Content-Length"), result.header("ETag")) == (str(len(DATA)), video)
    ranged = get("projects/prj_1/media/clip.mp4", method="HEAD", headers={"Range": "bytes=0-9"})
    assert (ranged.status, ranged.chunks, ranged.header("Content-Range")) == (206, [], "bytes 0-9/307200")
    assert ranged.header("Content-Length") == "10"


def test_a_reader_that_goes_away_stops_the_stream(video: str) -> None:
    result = get("projects/prj_1/media/clip.mp4", read=1)
    assert [len(c) for c in result.chunks] == [131072]  # the rest was never read from S3


def test_a_missing_object_is_404(tenant) -> None:
    assert_error(get("assets/nothing-here.png"), 404, "NOT_FOUND")
    assert_error(get("assets/nothing-here.png", method="HEAD"), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    "raw_path",
    ["/v1/r2", "/v1/r2/", "/v1/r2/assets/../private/x", "/v1/r2/assets/%2e%2e/private/x", "/v1/r2/assets//x",
     "/v1/r2/%2Fworkspaces/x", "/v1/r2/assets/a%5Cb", "/v1/r2/assets/a%0Db"],
)  # fmt: skip
def test_bad_paths_are_400(tenant, raw_path: str) -> None:
    assert_error(get(raw_path=raw_path), 400, "INVALID_PATH")


@pytest.mark.parametrize("path", ["conversations/prj_1/t/turn.json", "billing/invoice.pdf", "private/x", "x.png"])
def test_prefixes_outside_the_allowlist_are_403(tenant, aws, path: str) -> None:
    put(aws, SAMPLE_WORKSPACE_ID, path, b"secret")
    assert_error(get(path), 403, "PREFIX_NOT_ALLOWED")


def test_another_workspaces_objects_are_out_of_reach(tenant, rival, aws) -> None:
    put(aws, rival.ws.id, "assets/rival.png", b"rival")
    assert_error(get("assets/rival.png"), 404, "NOT_FOUND")  # read under the key's own workspace
    assert_error(get(f"workspaces/{rival.ws.id}/assets/rival.png"), 403, "PREFIX_NOT_ALLOWED")
    assert get("assets/rival.png", headers={"Authorization": f"Bearer {rival.key}"}).body == b"rival"


@pytest.mark.parametrize("credential", [None, "sk_ws_unknown", "eyJhbGciOiJIUzI1NiJ9.e30.sig"])
def test_a_bad_credential_is_401(video: str, credential: str | None) -> None:
    auth = f"Bearer {credential}" if credential else None
    result = get("projects/prj_1/media/clip.mp4", headers={"Authorization": auth})
    assert (result.status, result.json()) == (401, UNAUTHORIZED)
