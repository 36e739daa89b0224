"""core.platform.response_stream: the metadata prelude API Gateway reads before a streamed body; its
chunks."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest

from core.platform.response_stream import DELIMITER, StreamBody, body_chunks, prelude


def metadata(result: dict) -> dict:
    raw = prelude(result)
    assert raw.endswith(DELIMITER) and raw.count(b"\x00") == 8  # the only NUL bytes are the delimiter's
    return json.loads(raw[: -len(DELIMITER)])


def test_prelude_of_a_powertools_result_keeps_multi_value_headers_and_cookies() -> None:
    result = {
        "statusCode": 206,
        "multiValueHeaders": {
            "Content-Type": ["video/mp4"],
            "Set-Cookie": ["a=1; Path=/", "b=2; Path=/"],
            "Vary": ["Origin", "Range"],
        },
        "body": StreamBody([]),
        "isBase64Encoded": False,
    }
    assert metadata(result) == {
        "statusCode": 206,
        "headers": {},
        "multiValueHeaders": result["multiValueHeaders"],
        "cookies": [],
    }


def test_headers_and_multi_value_headers_are_merged_as_api_gateway_merges_them() -> None:
    result = {
        "statusCode": 200,
        "headers": {"X-One": "1", "vary": "Accept", "Content-Range": "bytes 0-1/2"},
        "multiValueHeaders": {"Vary": ["Origin"], "Content-Range": ["bytes 0-1/2"]},
        "cookies": ["c=3"],
    }
    assert metadata(result) == {
        "statusCode": 200,
        "headers": {"X-One": "1"},  # each name once: a name in both lists its values under multiValueHeaders
        "multiValueHeaders": {"Vary": ["Accept", "Origin"], "Content-Range": ["bytes 0-1/2"]},
        "cookies": ["c=3"],
    }


def test_the_prelude_never_contains_a_nul_byte_before_the_delimiter() -> None:
    result = {"statusCode": 200, "headers": {"X-Odd": "a\x00b", "X-Accent": "é"}, "cookies": ["n=\x00"]}
    assert metadata(result)["headers"] == {"X-Odd": "a\x00b", "X-Accent": "é"}


def test_a_result_without_status_code_is_refused_before_anything_is_streamed() -> None:
    with pytest.raises(KeyError):
        prelude({"body": "x"})


def test_a_str_body_is_one_utf8_chunk() -> None:
    assert list(body_chunks({"statusCode": 200, "body": '{"é":1}'})) == ['{"é":1}'.encode()]


def test_a_base64_body_is_one_decoded_chunk() -> None:
    data = bytes(range(256))
    result = {"statusCode": 200, "body": base64.b64encode(data).decode(), "isBase64Encoded": True}
    assert list(body_chunks(result)) == [data]


@pytest.mark.parametrize("body", [None, ""])
def test_no_body_is_no_chunk(body: str | None) -> None:
    assert list(body_chunks({"statusCode": 304, "body": body})) == []


def test_a_stream_body_yields_its_chunks_as_produced() -> None:
    produced: list[int] = []

    def chunks() -> Iterator[bytes]:
        for n in range(3):
            produced.append(n)
            yield str(n).encode()

    stream = body_chunks({"statusCode": 200, "body": StreamBody(chunks())})
    assert next(stream) == b"0" and produced == [0]  # lazily: nothing is produced ahead
    assert list(stream) == [b"1", b"2"]


def test_closing_a_stream_body_runs_the_generator_finally() -> None:
    events: list[str] = []

    def chunks() -> Iterator[bytes]:
        try:
            yield b"first"
            yield b"second"
        finally:
            events.append("finally")

    body = StreamBody(chunks())
    assert next(iter(body)) == b"first"
    body.close()
    assert events == ["finally"]
    body.close()  # closing twice is harmless
    assert events == ["finally"]


def test_closing_a_stream_body_closes_an_iterable_that_has_close() -> None:
    class Upstream:
        closed = False

        def __iter__(self) -> Iterator[bytes]:
            return iter([b"x"])

        def close(self) -> None:
            self.closed = True

    upstream = Upstream()
    body = StreamBody(upstream)
    assert list(body) == [b"x"]
    body.close()
    assert upstream.closed


def test_a_plain_list_stream_body_closes_without_error() -> None:
    body = StreamBody([b"a", b"b"])
    assert list(body_chunks({"statusCode": 200, "body": body})) == [b"a", b"b"]
    body.close()
