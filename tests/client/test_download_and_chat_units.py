"""Downloads (resume, short ranges, redirect, integrity) and chat decoding (sources too) on ``httpx.MockTransport``."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from workspace_client import (
    AsyncBrain,
    Brain,
    ChatEvent,
    ChatStreamError,
    DownloadIntegrityError,
    IncompleteStreamError,
    Source,
)
from workspace_client.chat import sources_of

KEY = "sk_ws_" + "b" * 49
BODY = bytes(range(256)) * 40  # 10 240 bytes
ETAG = f'"{hashlib.md5(BODY, usedforsecurity=False).hexdigest()}"'


class ObjectServer:
    """``/v1/r2``'s semantics for one object: Range (answered at most ``cap`` bytes), If-Range, a 307 when whole."""

    def __init__(self, body: bytes = BODY, etag: str = ETAG, cap: int = 4096, redirect_whole: bool = False):
        self.body, self.etag, self.cap, self.redirect_whole = body, etag, cap, redirect_whole
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        direct = request.url.host == "s3.test"
        if not direct and request.headers.get("authorization") != f"Bearer {KEY}":
            return httpx.Response(401, json={"error": "no", "code": "UNAUTHORIZED"})
        if direct and "authorization" in request.headers:
            raise AssertionError("the key must never travel to S3")
        headers = {"ETag": self.etag, "Accept-Ranges": "bytes"}
        byte_range = request.headers.get("range")
        if byte_range and request.headers.get("if-range", self.etag) == self.etag:
            start = int(byte_range.removeprefix("bytes=").rstrip("-"))
            if start >= len(self.body):
                return httpx.Response(416, headers=headers | {"Content-Range": f"bytes */{len(self.body)}"})
            end = min(len(self.body), start + self.cap) - 1
            headers["Content-Range"] = f"bytes {start}-{end}/{len(self.body)}"
            return httpx.Response(206, content=chunked(self.body[start : end + 1]), headers=headers)
        if self.redirect_whole and not direct:
            return httpx.Response(307, headers={"Location": "http://s3.test/bucket/object?X-Amz-Signature=x"})
        return httpx.Response(
            200, content=chunked(self.body), headers=headers | {"Content-Length": str(len(self.body))}
        )


def chunked(body: bytes) -> Iterator[bytes]:
    """The body in 1 KiB chunks, as a network delivers it (a progress callback sees each)."""
    return (body[offset : offset + 1024] for offset in range(0, len(body), 1024))


def brain(server: ObjectServer) -> Brain:
    return Brain("http://brain.test", key=KEY, transport=httpx.MockTransport(server), sleep=lambda _: None)


def test_an_interrupted_download_resumes_from_the_part_with_if_range(tmp_path: Path) -> None:
    server, target, seen = ObjectServer(), tmp_path / "video.mp4", []

    def stop_after_first_chunk(done: int, total: int | None) -> None:
        seen.append(done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        brain(server).download("projects/p/video.mp4", target, progress=stop_after_first_chunk)
    kept = (tmp_path / "video.mp4.part").stat().st_size
    assert not target.exists() and 0 < kept < len(BODY)
    assert brain(server).download("projects/p/video.mp4", target, progress=False) == target
    assert target.read_bytes() == BODY and not (tmp_path / "video.mp4.part").exists()
    resumed = server.requests[1]
    assert resumed.headers["range"] == f"bytes={kept}-" and resumed.headers["if-range"] == ETAG


def test_an_object_changed_since_the_part_starts_over(tmp_path: Path) -> None:
    target = tmp_path / "a.bin"
    (tmp_path / "a.bin.part").write_bytes(b"old bytes of another version")
    (tmp_path / "a.bin.part.etag").write_text('"0123456789abcdef0123456789abcdef"')
    server = ObjectServer(cap=len(BODY))
    brain(server).download("assets/a.bin", target, progress=False)
    assert target.read_bytes() == BODY  # If-Range did not match: the whole object, the part replaced


def test_a_large_object_is_fetched_from_s3_without_the_key(tmp_path: Path) -> None:
    server = ObjectServer(redirect_whole=True, cap=len(BODY))
    brain(server).download("media/big.mp4", tmp_path / "big.mp4", progress=False)
    assert (tmp_path / "big.mp4").read_bytes() == BODY and server.requests[-1].url.host == "s3.test"


def test_a_checksum_mismatch_keeps_nothing(tmp_path: Path) -> None:
    server = ObjectServer(etag='"ffffffffffffffffffffffffffffffff"')
    with pytest.raises(DownloadIntegrityError, match="MD5"):
        brain(server).download("assets/a.bin", tmp_path / "a.bin", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_a_multipart_etag_checks_the_length_only(tmp_path: Path) -> None:
    server = ObjectServer(etag='"0123456789abcdef0123456789abcdef-3"')
    brain(server).download("assets/a.bin", tmp_path / "a.bin", progress=False)
    assert (tmp_path / "a.bin").read_bytes() == BODY


def test_a_part_that_is_already_whole_is_finished_on_416(tmp_path: Path) -> None:
    (tmp_path / "a.bin.part").write_bytes(BODY)
    (tmp_path / "a.bin.part.etag").write_text(ETAG)
    brain(ObjectServer()).download("assets/a.bin", tmp_path / "a.bin", progress=False)
    assert (tmp_path / "a.bin").read_bytes() == BODY


def ndjson(*lines: str) -> Brain:
    body = "".join(f"{line}\n" for line in lines).encode()
    handler = httpx.MockTransport(lambda _: httpx.Response(200, content=body))
    return Brain("http://brain.test", key=KEY, transport=handler)


START = '{"type":"start","threadKey":"thr_1","turnId":"turn_1"}'


def test_the_final_event_carries_the_turn_id_and_the_charge() -> None:
    events = list(
        ndjson(
            START,
            '{"type":"delta","text":"Hel"}',
            '{"type":"keepalive"}',
            '{"type":"delta","text":"lo"}',
            '{"type":"done","usage":{"inputTokens":3,"outputTokens":2,"credits":1}}',
        ).chat("prj_1", "hi")
    )
    assert "".join(event.text for event in events) == "Hello"
    assert [event.type for event in events] == ["start", "delta", "keepalive", "delta", "done"]
    final = events[-1]
    assert final.final and (final.turn_id, final.thread_key, final.credits) == ("turn_1", "thr_1", 1)


def test_an_error_event_raises_and_a_cut_stream_is_incomplete() -> None:
    failing = ndjson(START, '{"type":"delta","text":"x"}', '{"type":"error","message":"busy","code":"MODEL_BUSY"}')
    with pytest.raises(ChatStreamError) as raised:
        list(failing.chat("prj_1", "hi"))
    assert (raised.value.code, raised.value.turn_id) == ("MODEL_BUSY", "turn_1")
    with pytest.raises(IncompleteStreamError):
        list(ndjson(START, '{"type":"delta","text":"x"}').chat("prj_1", "hi"))


SOURCES = (  # every key on the wire, null where a source has none (an unknown one, score, is kept on ``wire``)
    '{"type":"sources","sources":['
    '{"itemId":"item_1","postId":null,"answerId":null,"name":"Opening hours","r2Key":"projects/prj_1/notes/hours.txt",'
    '"where":"page 2","score":0.9},'
    '{"itemId":null,"postId":"post_1","answerId":null,"name":"Summer menu","r2Key":null,"where":""},'
    '{"itemId":null,"postId":null,"answerId":null,"name":"About us","r2Key":null,"where":"section about"}]}'
)
DONE = '{"type":"done","usage":{"inputTokens":3,"outputTokens":2,"credits":1}}'


def test_the_sources_of_a_turn_are_an_event_and_on_the_final_one() -> None:
    events = list(
        ndjson(
            START,
            '{"type":"delta","text":"Open at 7."}',
            '{"type":"thinking","text":"an event type this client does not know"}',
            SOURCES,
            DONE,
        ).chat("prj_1", "When do you open?")
    )
    assert [event.type for event in events] == ["start", "delta", "sources", "done"]  # the unknown one skipped
    assert "".join(event.text for event in events) == "Open at 7."
    expected = (
        Source("Opening hours", "page 2", item_id="item_1", r2_key="projects/prj_1/notes/hours.txt"),
        Source("Summer menu", "", post_id="post_1"),
        Source("About us", "section about"),
    )
    sources_event, final = events[2], events[3]
    assert sources_event.sources == expected and sources_event.text == "" and not sources_event.final
    assert final.final and final.sources == expected and final.credits == 1
    assert [source.kind for source in final.sources] == ["item", "post", "section"]
    assert sources_event.wire.model_dump(by_alias=True)["sources"][0]["score"] == 0.9  # unknown fields kept on wire
    assert all(event.sources == () for event in events[:2])


def test_sources_that_are_not_objects_are_left_out() -> None:
    assert sources_of([{"name": "FAQ", "itemId": "item_2", "r2Key": 7}, "text", None]) == (Source("FAQ", "", "item_2"),)
    assert sources_of(None) == () and sources_of({"name": "x"}) == ()


def test_no_sources_and_an_empty_list_are_both_none() -> None:
    without = list(ndjson(START, '{"type":"delta","text":"x"}', DONE).chat("prj_1", "hi"))
    empty = list(ndjson(START, '{"type":"delta","text":"x"}', '{"type":"sources","sources":[]}', DONE).chat("p", "hi"))
    assert without[-1].sources == () and empty[-1].sources == () and empty[-1].final
    assert [event.type for event in empty] == ["start", "delta", "sources", "done"]


def test_the_async_client_gives_the_sources_too() -> None:
    body = "".join(f"{line}\n" for line in (START, '{"type":"delta","text":"x"}', SOURCES, DONE)).encode()

    async def run() -> list[ChatEvent]:
        transport = httpx.MockTransport(lambda _: httpx.Response(200, content=body))
        async with AsyncBrain("http://brain.test", key=KEY, transport=transport) as client:
            return [event async for event in client.chat("prj_1", "hi")]

    events = asyncio.run(run())
    assert events[-1].final and [source.name for source in events[-1].sources] == [
        "Opening hours", "Summer menu", "About us",
    ]  # fmt: skip
