"""r2's single byte ranges (RFC 9110 §14): 206, 416, range headers it ignores, and If-Range."""

from __future__ import annotations

import pytest

from tests.support.r2 import CLIP, DATA, assert_error, get

pytestmark = pytest.mark.usefixtures("small_chunks")


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


def test_head_with_an_unsatisfiable_range_is_416(video: str) -> None:
    result = get(CLIP, method="HEAD", headers={"Range": "bytes=307200-"})
    assert_error(result, 416, "RANGE_NOT_SATISFIABLE")
    assert result.header("Content-Range") == "bytes */307200"


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
