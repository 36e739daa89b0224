"""/v1/r2 over real HTTP: media semantics (Range, If-None-Match, HEAD), the prefix allowlist and tenant isolation.

``http.client`` throughout: it sends HEAD, follows nothing and shows the raw headers.
The demo's videos are MP4s of about 2.5 MB, encoded at the runner's first start.
"""

from __future__ import annotations

import http.client
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from tests.support.runner import LocalService

pytestmark = pytest.mark.e2e

JSON = "application/json; charset=utf-8"
HTTP_DATE = re.compile(r"^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$")


@dataclass(frozen=True)
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def json(self) -> Any:
        return json.loads(self.body)


def fetch(service: LocalService, target: str, key: str | None, method: str = "GET", **headers: str) -> Answer:
    url = urlsplit(service.brain)
    assert url.hostname and url.port
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        sent = ({"Authorization": f"Bearer {key}"} if key else {}) | {
            k.replace("_", "-"): v for k, v in headers.items()
        }
        connection.request(method, target, headers=sent)
        response = connection.getresponse()
        return Answer(response.status, response.headers, response.read())
    finally:
        connection.close()


def assert_error(answer: Answer, status: int, code: str) -> None:
    assert (answer.status, answer.header("Content-Type")) == (status, JSON), answer.body[:300]
    body = answer.json()
    assert set(body) == {"error", "code"} and body["code"] == code, body


@pytest.fixture(scope="module")
def first(service: LocalService) -> dict[str, Any]:
    return service.demo["workspaces"][0]


@pytest.fixture(scope="module")
def video_post(service: LocalService, first: dict[str, Any]) -> dict[str, Any]:
    agent = first["agents"][0]["id"]
    feed = fetch(service, f"/v1/agent/{agent}/feed", first["key"])
    assert feed.status == 200
    post = next(p for p in json.loads(feed.body) if p["kind"] == "video" and p["playable"] and p["poster"])
    return post | {"agentId": agent}


@pytest.fixture(scope="module")
def video(video_post: dict[str, Any]) -> str:
    """The request target of the post's playable MP4."""
    return f"/v1/r2/projects/{video_post['agentId']}/{quote(video_post['playable'])}"


@dataclass(frozen=True)
class Download:
    answer: Answer
    size: int
    etag: str


@pytest.fixture(scope="module")
def full(service: LocalService, first: dict[str, Any], video: str) -> Download:
    """The whole MP4, downloaded once: ranges are compared with it."""
    answer = fetch(service, video, first["key"])
    return Download(answer, len(answer.body), answer.header("ETag") or "")


def test_the_playable_mp4_streams_whole_with_media_headers(full: Download) -> None:
    answer = full.answer
    assert answer.status == 200
    assert answer.header("Content-Type") == "video/mp4"
    assert int(answer.header("Content-Length") or 0) == full.size >= 2_000_000
    assert answer.body[4:8] == b"ftyp"  # an MP4 box, not an error body
    assert full.etag.startswith('"') and full.etag.endswith('"') and len(full.etag) > 2
    assert HTTP_DATE.match(answer.header("Last-Modified") or "")
    assert answer.header("Accept-Ranges") == "bytes"
    assert answer.header("Cache-Control")
    assert answer.header("Content-Range") is None
    assert answer.header("Access-Control-Allow-Origin") == "*"


def test_a_range_is_206_with_exactly_those_bytes(
    service: LocalService, first: dict, video: str, full: Download
) -> None:
    answer = fetch(service, video, first["key"], Range="bytes=1000-1999")
    assert answer.status == 206
    assert answer.header("Content-Range") == f"bytes 1000-1999/{full.size}"
    assert answer.header("Content-Length") == "1000"
    assert answer.body == full.answer.body[1000:2000]
    assert (answer.header("Content-Type"), answer.header("ETag")) == ("video/mp4", full.etag)
    assert answer.header("Accept-Ranges") == "bytes"


def test_open_ended_and_suffix_ranges(service: LocalService, first: dict, video: str, full: Download) -> None:
    start = full.size - 5000
    tail = fetch(service, video, first["key"], Range=f"bytes={start}-")
    assert (tail.status, tail.header("Content-Range")) == (206, f"bytes {start}-{full.size - 1}/{full.size}")
    assert tail.body == full.answer.body[start:]
    suffix = fetch(service, video, first["key"], Range="bytes=-700")
    assert (suffix.status, suffix.header("Content-Range")) == (
        206,
        f"bytes {full.size - 700}-{full.size - 1}/{full.size}",
    )
    assert suffix.body == full.answer.body[-700:]
    beyond = fetch(service, video, first["key"], Range=f"bytes={full.size - 10}-{full.size + 1000}")
    assert (beyond.status, beyond.body) == (206, full.answer.body[-10:])


def test_an_unsatisfiable_range_is_416(service: LocalService, first: dict, video: str, full: Download) -> None:
    answer = fetch(service, video, first["key"], Range=f"bytes={full.size}-")
    assert_error(answer, 416, "RANGE_NOT_SATISFIABLE")
    assert answer.header("Content-Range") == f"bytes */{full.size}"


def test_if_none_match_is_304_without_a_body(service: LocalService, first: dict, video: str, full: Download) -> None:
    answer = fetch(service, video, first["key"], If_None_Match=full.etag)
    assert (answer.status, answer.body) == (304, b"")
    assert answer.header("ETag") == full.etag
    assert answer.header("Cache-Control") == full.answer.header("Cache-Control")
    changed = fetch(service, video, first["key"], If_None_Match='"not-the-current-etag"')
    assert (changed.status, len(changed.body)) == (200, full.size)


def test_head_sends_the_headers_only(service: LocalService, first: dict, video: str, full: Download) -> None:
    answer = fetch(service, video, first["key"], method="HEAD")
    assert (answer.status, answer.body) == (200, b"")
    assert answer.header("Content-Length") == str(full.size)
    assert (answer.header("Content-Type"), answer.header("ETag")) == ("video/mp4", full.etag)
    assert answer.header("Accept-Ranges") == "bytes"
    assert answer.header("Last-Modified") == full.answer.header("Last-Modified")


def test_the_poster_frame_is_an_image(service: LocalService, first: dict, video_post: dict[str, Any]) -> None:
    answer = fetch(service, f"/v1/r2/projects/{video_post['agentId']}/{quote(video_post['poster'])}", first["key"])
    assert answer.status == 200
    assert (answer.header("Content-Type") or "").startswith("image/")
    assert answer.body.startswith(b"\xff\xd8\xff") or answer.body.startswith(b"\x89PNG")
    assert answer.header("Content-Length") == str(len(answer.body))


@pytest.mark.parametrize("path", ["billing/invoice-2026-10.json", "private/notes.txt", "conversations/x.json"])
def test_a_prefix_outside_the_allowlist_is_403(service: LocalService, first: dict, path: str) -> None:
    answer = fetch(service, f"/v1/r2/{path}", first["key"])
    assert_error(answer, 403, "PREFIX_NOT_ALLOWED")
    assert b"Supplier" not in answer.body and b"INV-2026" not in answer.body


@pytest.mark.parametrize(
    "target",
    [
        "/v1/r2/projects/%2e%2e/private/notes.txt",
        "/v1/r2/public/%2E%2E/billing/invoice-2026-10.json",
        "/v1/r2/public/%2e/hello.txt",
        "/v1/r2/public/..%2fbilling/invoice-2026-10.json",
    ],
)
def test_dot_segments_encoded_are_400_invalid_path(service: LocalService, first: dict, target: str) -> None:
    answer = fetch(service, target, first["key"])
    assert_error(answer, 400, "INVALID_PATH")


def test_an_allowlisted_text_object_and_a_missing_one(service: LocalService, first: dict) -> None:
    hello = fetch(service, "/v1/r2/public/hello.txt", first["key"])
    assert (hello.status, hello.body) == (200, b"Hello from Northwind Coffee!\n")
    assert_error(fetch(service, "/v1/r2/public/nothing-here.txt", first["key"]), 404, "NOT_FOUND")


def test_another_workspaces_key_cannot_read_this_workspaces_media(
    service: LocalService, first: dict, video: str, video_post: dict[str, Any]
) -> None:
    second = service.demo["workspaces"][1]
    assert_error(fetch(service, video, second["key"]), 404, "NOT_FOUND")
    assert_error(fetch(service, video, second["key"], method="GET", Range="bytes=0-9"), 404, "NOT_FOUND")
    head = fetch(service, video, second["key"], method="HEAD")
    assert (head.status, head.body) == (404, b"")
    # The objects are there: the first workspace's key reads the same path.
    assert fetch(service, video, first["key"], method="HEAD").status == 200


def test_no_key_or_an_unknown_key_is_401(service: LocalService, video: str) -> None:
    for key in (None, "sk_ws_not-a-real-key"):
        assert_error(fetch(service, video, key), 401, "UNAUTHORIZED")


def test_a_cors_preflight_from_a_brand_origin_is_answered(service: LocalService, video: str) -> None:
    answer = fetch(
        service,
        video,
        None,
        method="OPTIONS",
        Origin="https://brand.example.com",
        Access_Control_Request_Method="GET",
        Access_Control_Request_Headers="authorization,range,if-none-match",
    )
    assert answer.status in (200, 204)
    assert answer.header("Access-Control-Allow-Origin") == "*"
    methods = {m.strip().upper() for m in (answer.header("Access-Control-Allow-Methods") or "").split(",")}
    assert {"GET", "HEAD"} <= methods
    allowed = {h.strip().lower() for h in (answer.header("Access-Control-Allow-Headers") or "").split(",")}
    assert {"authorization", "range", "if-none-match"} <= allowed


def vary(answer: Answer) -> set[str]:
    return {token.strip().lower() for token in (answer.header("Vary") or "").split(",")}


def test_every_answer_varies_on_authorization_and_is_nosniff(
    service: LocalService, first: dict, video: str, full: Download
) -> None:
    answers = [
        full.answer,
        fetch(service, video, first["key"], Range="bytes=0-9"),
        fetch(service, video, first["key"], If_None_Match=full.etag),
        fetch(service, video, first["key"], Range=f"bytes={full.size}-"),
        fetch(service, video, first["key"], method="HEAD"),
    ]
    assert [a.status for a in answers] == [200, 206, 304, 416, 200]
    for answer in answers:
        assert "authorization" in vary(answer), answer.status
        assert answer.header("X-Content-Type-Options") == "nosniff", answer.status


def test_head_with_an_unsatisfiable_range_is_416(
    service: LocalService, first: dict, video: str, full: Download
) -> None:
    answer = fetch(service, video, first["key"], method="HEAD", Range=f"bytes={full.size}-")
    assert (answer.status, answer.body) == (416, b"")
    assert answer.header("Content-Range") == f"bytes */{full.size}"


def test_if_range_keeps_the_range_only_while_the_etag_matches(
    service: LocalService, first: dict, video: str, full: Download
) -> None:
    same = fetch(service, video, first["key"], Range="bytes=0-99", If_Range=full.etag)
    assert (same.status, same.header("Content-Range")) == (206, f"bytes 0-99/{full.size}")
    assert same.body == full.answer.body[:100]
    for validator in ('"changed-since"', f"W/{full.etag}", full.answer.header("Last-Modified") or ""):
        other = fetch(service, video, first["key"], Range="bytes=0-99", If_Range=validator)
        assert (other.status, other.header("Content-Range"), other.body) == (200, None, full.answer.body)


@pytest.mark.parametrize("if_none_match", ['"a", {etag}', "W/{etag}", "*"])
def test_if_none_match_lists_weak_tags_and_star_are_304(
    service: LocalService, first: dict, video: str, full: Download, if_none_match: str
) -> None:
    answer = fetch(service, video, first["key"], If_None_Match=if_none_match.format(etag=full.etag))
    assert (answer.status, answer.body, answer.header("ETag")) == (304, b"", full.etag)
    other = fetch(service, video, first["key"], If_None_Match='"a", W/"b"')
    assert (other.status, len(other.body)) == (200, full.size)
