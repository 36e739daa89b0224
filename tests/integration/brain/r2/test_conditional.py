"""r2's If-None-Match (RFC 9110 §13): 304 for a current tag (weak, listed or *), the object otherwise; it is
evaluated before If-Range."""

from __future__ import annotations

import pytest
from botocore.response import StreamingBody

from tests.support.r2 import CLIP, DATA, get, vary

pytestmark = pytest.mark.usefixtures("small_chunks")


def test_if_none_match_is_304_with_etag_and_cache_control(video: str) -> None:
    result = get("projects/prj_1/media/clip.mp4", headers={"If-None-Match": video})
    assert (result.status, result.body) == (304, b"")
    assert (result.header("ETag"), result.header("Cache-Control")) == (video, "private, max-age=3600")
    changed = get("projects/prj_1/media/clip.mp4", headers={"If-None-Match": '"another"'})
    assert (changed.status, changed.body) == (200, DATA)


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
