"""r2 with a response cap (Lambda streams at most 200 MB per response; R2_MAX_RESPONSE_BYTES): ranges are cut to
it, larger whole objects are a redirect to S3."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from botocore.response import StreamingBody

from local.gateway.events import SAMPLE_WORKSPACE_ID
from tests.support.r2 import CAP, CLIP, DATA, get, vary

pytestmark = pytest.mark.usefixtures("small_chunks")


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
