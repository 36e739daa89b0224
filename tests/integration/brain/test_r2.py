"""GET|HEAD /v1/r2/{path+} through its handler (events/BrainR2Function.json, moto S3), drained as the runtime does."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from botocore.response import StreamingBody

from core import deps
from core.services import media
from local.events import SAMPLE_WORKSPACE_ID
from tests.support.brain import JSON, UNAUTHORIZED
from tests.support.lambdas import (
    LambdaContext,
    StreamedResult,
    handler_module,
    invoke_streamed,
    sample_event,
)
from tests.support.r2 import R2, get, put, request

DATA = bytes(range(256)) * 1200  # 307,200 bytes: three chunks of at most 128 KiB
HTTP_DATE = re.compile(r"^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$")
CLIP = "projects/prj_1/media/clip.mp4"
CAP = 100_000  # R2_MAX_RESPONSE_BYTES in the tests of the cap: the clip is three times larger


def assert_error(result: StreamedResult, status: int, code: str) -> dict[str, Any]:
    assert (result.status, result.header("Content-Type")) == (status, JSON), result.body
    body = result.json()
    assert body["code"] == code and set(body) == {"error", "code"}
    return body


def vary(result: StreamedResult) -> set[str]:
    return {token.strip().lower() for token in (result.header("Vary") or "").split(",")}


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """128 KiB chunks, so the clip spans three (r2 streams 1 MiB chunks: test_r2_chunks.py)."""
    monkeypatch.setattr(media, "CHUNK_BYTES", 128 * 1024)


@pytest.fixture
def video(tenant, aws) -> str:
    return put(aws, SAMPLE_WORKSPACE_ID, CLIP, DATA, ContentType="video/mp4")


@pytest.fixture
def capped(video: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The clip, served with a response cap of CAP bytes."""
    monkeypatch.setenv("R2_MAX_RESPONSE_BYTES", str(CAP))
    deps.reset()
    return video


@pytest.fixture
def s3_bodies_closed(monkeypatch: pytest.MonkeyPatch) -> list[StreamingBody]:
    """Every botocore StreamingBody closed during the test, as often as it was closed."""
    closed: list[StreamingBody] = []
    close = StreamingBody.close

    def spy(body: StreamingBody) -> None:
        closed.append(body)
        close(body)

    monkeypatch.setattr(StreamingBody, "close", spy)
    return closed


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
    assert result.header("X-Content-Type-Options") == "nosniff"
    assert "authorization" in vary(result)
    assert result.header("Content-Encoding") is None and result.header("Content-Disposition") is None
    assert result.header("Content-Language") is None


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


def test_a_reader_that_goes_away_stops_the_stream(video: str, s3_bodies_closed: list[StreamingBody]) -> None:
    result = get("projects/prj_1/media/clip.mp4", read=1)
    assert [len(c) for c in result.chunks] == [131072]  # the rest was never read from S3
    assert len(s3_bodies_closed) == 1


def test_a_response_closed_before_its_first_chunk_releases_s3s_body(
    video: str, s3_bodies_closed: list[StreamingBody]
) -> None:
    raw = handler_module(R2).lambda_handler(request(CLIP), LambdaContext(function_name=R2))
    assert raw["statusCode"] == 200 and not s3_bodies_closed
    raw["body"].close()  # as the runtime does when the reader went away before the first byte
    raw["body"].close()
    assert len(s3_bodies_closed) == 1 and s3_bodies_closed[0]._raw_stream.closed


def test_a_body_read_to_its_end_is_closed_once(video: str, s3_bodies_closed: list[StreamingBody]) -> None:
    assert get(CLIP).body == DATA
    assert len(s3_bodies_closed) == 1


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


# --- the response cap (Lambda streams at most 200 MB per response)


@pytest.mark.parametrize(
    ("header", "content_range", "part"),
    [
        ("bytes=0-", "bytes 0-99999/307200", DATA[:CAP]),
        ("bytes=100-", "bytes 100-100099/307200", DATA[100 : 100 + CAP]),
        ("bytes=0-299999", "bytes 0-99999/307200", DATA[:CAP]),
        ("bytes=250000-", "bytes 250000-307199/307200", DATA[250000:]),  # within the cap: as asked
        ("bytes=-200000", "bytes 107200-207199/307200", DATA[107200:207200]),  # the suffix's first CAP bytes
        ("bytes=-900000", "bytes 0-99999/307200", DATA[:CAP]),
        ("bytes=-50000", "bytes 257200-307199/307200", DATA[-50000:]),
    ],
)
def test_a_part_longer_than_the_cap_is_cut_to_its_first_bytes(
    capped: str, s3_bodies_closed: list[StreamingBody], header: str, content_range: str, part: bytes
) -> None:
    result = get(CLIP, headers={"Range": header})
    assert (result.status, result.header("Content-Range")) == (206, content_range)
    assert result.header("Content-Length") == str(len(part)) and result.body == part
    assert len(s3_bodies_closed) == 1
    head = get(CLIP, method="HEAD", headers={"Range": header})
    assert (head.status, head.header("Content-Range"), head.header("Content-Length")) == (
        206,
        content_range,
        str(len(part)),
    )


@pytest.mark.parametrize("headers", [{}, {"Range": "bytes=0-1,5-6"}, {"Range": "bytes=0-9", "If-Range": '"old"'}])
def test_a_whole_object_larger_than_the_cap_is_a_redirect_to_s3(
    capped: str, s3_bodies_closed: list[StreamingBody], headers: dict[str, str]
) -> None:
    result = get(CLIP, headers=headers)
    assert (result.status, result.chunks) == (307, [])
    assert len(s3_bodies_closed) == 1  # S3's body was closed at once, unread
    assert (result.header("Cache-Control"), result.header("Content-Range")) == ("no-store", None)
    assert "authorization" in vary(result)
    location = urlsplit(result.header("Location") or "")
    assert location.path.endswith(f"/workspaces/{SAMPLE_WORKSPACE_ID}/{CLIP}")
    query = parse_qs(location.query)
    assert query["X-Amz-Expires"] == ["300"] and query["X-Amz-Signature"]
    followed = requests.get(result.header("Location") or "", timeout=10)  # moto serves the presigned URL
    assert (followed.status_code, followed.content) == (200, DATA)


def test_head_of_an_object_larger_than_the_cap_is_200(capped: str) -> None:
    result = get(CLIP, method="HEAD")
    assert (result.status, result.chunks, result.header("Location")) == (200, [], None)
    assert (result.header("Content-Length"), result.header("ETag")) == (str(len(DATA)), capped)


# --- headers every answer carries, and the object's own


def test_every_answer_varies_on_authorization_and_is_nosniff(video: str) -> None:
    answers = {
        200: get(CLIP),
        206: get(CLIP, headers={"Range": "bytes=0-9"}),
        304: get(CLIP, headers={"If-None-Match": video}),
        416: get(CLIP, headers={"Range": "bytes=999999-"}),
        -200: get(CLIP, method="HEAD"),
        -416: get(CLIP, method="HEAD", headers={"Range": "bytes=999999-"}),
    }
    for status, result in answers.items():
        assert result.status == abs(status)
        assert "authorization" in vary(result), status
        assert result.header("X-Content-Type-Options") == "nosniff", status


def test_content_encoding_disposition_and_language_are_passed_on(tenant, aws) -> None:
    put(
        aws,
        SAMPLE_WORKSPACE_ID,
        "public/report.txt.gz",
        b"\x1f\x8b-gzip",
        ContentType="text/plain",
        ContentEncoding="gzip",
        ContentDisposition='attachment; filename="report.txt"',
        ContentLanguage="fr",
    )
    for method in ("GET", "HEAD"):
        result = get("public/report.txt.gz", method=method)
        assert result.status == 200
        assert result.header("Content-Encoding") == "gzip"
        assert result.header("Content-Disposition") == 'attachment; filename="report.txt"'
        assert result.header("Content-Language") == "fr"
        assert result.header("X-Content-Type-Options") == "nosniff"


def test_head_with_an_unsatisfiable_range_is_416(video: str) -> None:
    result = get(CLIP, method="HEAD", headers={"Range": "bytes=307200-"})
    assert_error(result, 416, "RANGE_NOT_SATISFIABLE")
    assert result.header("Content-Range") == "bytes */307200"


# --- conditional requests (RFC 9110 §13)


def test_if_range_with_the_current_etag_keeps_the_range(video: str) -> None:
    result = get(CLIP, headers={"Range": "bytes=0-9", "If-Range": video})
    assert (result.status, result.header("Content-Range"), result.body) == (206, "bytes 0-9/307200", DATA[:10])
    head = get(CLIP, method="HEAD", headers={"Range": "bytes=0-9", "If-Range": video})
    assert (head.status, head.header("Content-Length")) == (206, "10")


@pytest.mark.parametrize("if_range", ['"an-older-etag"', "W/{etag}", "Wed, 21 Oct 2026 07:28:00 GMT", "{etag}x"])
def test_if_range_that_does_not_match_serves_the_whole_object(video: str, if_range: str) -> None:
    headers = {"Range": "bytes=0-9", "If-Range": if_range.format(etag=video)}
    result = get(CLIP, headers=headers)
    assert (result.status, result.header("Content-Range"), result.body) == (200, None, DATA)
    assert result.header("Content-Length") == str(len(DATA))
    head = get(CLIP, method="HEAD", headers=headers)
    assert (head.status, head.header("Content-Length")) == (200, str(len(DATA)))


def test_if_none_match_is_evaluated_before_if_range(video: str) -> None:
    result = get(CLIP, headers={"Range": "bytes=0-9", "If-Range": '"an-older-etag"', "If-None-Match": video})
    assert (result.status, result.body, result.header("ETag")) == (304, b"", video)


@pytest.mark.parametrize(
    "if_none_match", ['"a", {etag}', '{etag},"b"', "W/{etag}", 'W/"a", W/{etag}', "*"]
)  # fmt: skip
def test_if_none_match_lists_weak_tags_and_star_are_304(
    video: str, s3_bodies_closed: list[StreamingBody], if_none_match: str
) -> None:
    header = if_none_match.format(etag=video)
    result = get(CLIP, headers={"If-None-Match": header})
    assert (result.status, result.body) == (304, b"")
    assert (result.header("ETag"), result.header("Cache-Control")) == (video, "private, max-age=3600")
    assert "authorization" in vary(result)
    if header != "*":  # S3 never sees these forms: its answer's body was closed unread
        assert len(s3_bodies_closed) == 1
    assert get(CLIP, method="HEAD", headers={"If-None-Match": header}).status == 304
    ranged = get(CLIP, headers={"If-None-Match": header, "Range": "bytes=0-9"})
    assert (ranged.status, ranged.body) == (304, b"")


@pytest.mark.parametrize("if_none_match", ['"a", "b"', 'W/"a"', "not-a-tag", '*, "a"'])
def test_if_none_match_without_the_current_etag_serves_the_object(video: str, if_none_match: str) -> None:
    result = get(CLIP, headers={"If-None-Match": if_none_match})
    assert (result.status, result.body) == (200, DATA)
