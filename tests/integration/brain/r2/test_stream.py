"""GET|HEAD /v1/r2/{path+} (events/BrainR2Function.json, moto S3), drained as the runtime does: the object
streamed in chunks, its headers and the ones every answer carries, HEAD, and S3's body released."""

from __future__ import annotations

import pytest
from botocore.response import StreamingBody

from local.gateway.events import SAMPLE_WORKSPACE_ID
from tests.support.lambdas import LambdaContext, handler_module, invoke_streamed, sample_event
from tests.support.r2 import CLIP, DATA, HTTP_DATE, R2, get, put, request, vary

pytestmark = pytest.mark.usefixtures("small_chunks")


def test_the_whole_object_streams_in_chunks_with_media_headers(video: str) -> None:
    result = get("projects/prj_1/media/clip.mp4")
    assert result.status == 200
    assert result.body == DATA and [len(c) for c in result.chunks] == [131072, 131072, 45056]
    assert result.header("Content-Type") == "video/mp4"
    assert result.header("Content-Length") == str(len(DATA))
    assert result.header("ETag") == video
    assert HTTP_DATE.match(result.header("Last-Modified") or "")
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
    # botocore keeps the urllib3 response private; its closed flag is what releases the connection.
    assert len(s3_bodies_closed) == 1 and s3_bodies_closed[0]._raw_stream.closed  # type: ignore[attr-defined]


def test_a_body_read_to_its_end_is_closed_once(video: str, s3_bodies_closed: list[StreamingBody]) -> None:
    assert get(CLIP).body == DATA
    assert len(s3_bodies_closed) == 1


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
