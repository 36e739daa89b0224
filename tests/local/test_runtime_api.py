"""core.platform.lambda_runtime.loop for real (a subprocess started by the layer's stream-bootstrap) against
local.containers.runtime_api.

Each test runs the probe function through ``ContainerPool.invoke_stream``: the runtime loop
long-polls /next, streams its response as a chunked POST, reports errors on /error, in
trailers or on /init/error, and closes the body when the reader goes away.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from local.containers.pool import InvocationFailed, StreamedResponse
from tests.support.lambdas import stack
from tests.support.streaming import PROBE, marker_text, probe_event, probe_pool, probe_stack


def lines(response: StreamedResponse) -> list[dict]:
    return [json.loads(line) for line in b"".join(response.chunks).splitlines()]


def test_a_function_streams_when_an_api_event_has_response_stream_transfer_mode() -> None:
    assert probe_stack().functions()[PROBE].streaming
    assert not stack().functions()["BrainFeedFunction"].streaming


def test_chunks_arrive_in_order_one_by_one_with_status_and_every_header() -> None:
    with probe_pool() as pool:
        response = pool.invoke_stream(PROBE, probe_event("/ticks?count=4"))
        try:
            chunks = list(response.chunks)
        finally:
            response.close()
    assert response.status == 200
    assert [json.loads(chunk)["n"] for chunk in chunks] == [0, 1, 2, 3]  # one POST chunk per yield, in order
    assert ("X-Probe", "one") in response.headers and ("X-Probe", "two") in response.headers
    assert [v for k, v in response.headers if k == "Set-Cookie"] == ["a=1; Path=/", "b=2; Path=/"]
    assert ("Content-Type", "application/x-ndjson") in response.headers


def test_a_str_body_is_one_chunk_and_empty_chunks_are_skipped() -> None:
    with probe_pool() as pool:
        assert list(pool.invoke_stream(PROBE, probe_event("/text")).chunks) == ["plain text, é".encode()]
        sized = pool.invoke_stream(PROBE, probe_event("/sized"))
        assert list(sized.chunks) == [b"abc", b"def"]
        assert ("Content-Length", "6") in sized.headers


def test_the_handler_gets_a_lambda_context_and_a_trace_id() -> None:
    with probe_pool() as pool:
        seen = json.loads(b"".join(pool.invoke_stream(PROBE, probe_event("/context")).chunks))
    assert seen["functionName"] == PROBE
    assert seen["memory"] == 256
    assert seen["arn"].endswith(f":function:{PROBE}")
    assert len(seen["requestId"]) == 36
    assert 0 < seen["remainingMs"] <= 5000
    assert seen["traceId"].startswith("Root=1-")


def test_warm_containers_are_reused() -> None:
    with probe_pool() as pool:
        first = lines(pool.invoke_stream(PROBE, probe_event("/ticks?count=1")))
        second = lines(pool.invoke_stream(PROBE, probe_event("/ticks?count=1")))
    assert first[0]["pid"] == second[0]["pid"]


def test_an_error_before_streaming_is_posted_to_error() -> None:
    with probe_pool() as pool, pytest.raises(InvocationFailed, match="RuntimeError: probe failed before streaming"):
        pool.invoke_stream(PROBE, probe_event("/boom"))


def test_an_error_mid_stream_arrives_in_the_trailers() -> None:
    with probe_pool() as pool:
        response = pool.invoke_stream(PROBE, probe_event("/ticks?count=3&failAt=1"))
        chunks = response.chunks
        first = json.loads(next(chunks))
        assert first["n"] == 0
        # The trailers name the error type, never its text (Lambda passes them to the caller).
        with pytest.raises(InvocationFailed, match=r"RuntimeError after the response began: The response failed$"):
            next(chunks)
        again = lines(pool.invoke_stream(PROBE, probe_event("/ticks?count=1")))
    assert again[0]["pid"] != first["pid"]  # a failed container is never reused


def test_an_import_failure_is_posted_to_init_error() -> None:
    with probe_pool(handler="no_such_module.lambda_handler") as pool, pytest.raises(InvocationFailed) as failure:
        pool.invoke_stream(PROBE, probe_event("/text"))
    assert "exited with status 1" in str(failure.value)
    assert "Unable to import module 'no_such_module'" in str(failure.value)


def test_a_missing_handler_function_is_posted_to_init_error() -> None:
    missing = pytest.raises(InvocationFailed, match="Handler 'no_such_function' missing")
    with probe_pool(handler="handler.no_such_function") as pool, missing:
        pool.invoke_stream(PROBE, probe_event("/text"))


def test_the_timeout_covers_the_whole_invocation() -> None:
    with probe_pool(timeout=1) as pool:
        with pytest.raises(InvocationFailed, match="timed out after 1s"):
            pool.invoke_stream(PROBE, probe_event("/ticks?wait=3"))  # before the prelude: a 502
        response = pool.invoke_stream(PROBE, probe_event("/ticks?count=3&delay=2"))
        assert json.loads(next(response.chunks))["n"] == 0
        with pytest.raises(InvocationFailed, match="timed out after 1s"):
            next(response.chunks)  # after the prelude: the body stops


def test_a_reader_going_away_closes_the_body_and_the_container_lives_on(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    with probe_pool() as pool:
        response = pool.invoke_stream(PROBE, probe_event(f"/ticks?count=100&delay=0.05&marker={marker}"))
        pid = json.loads(next(response.chunks))["pid"]
        response.close()
        assert marker_text(marker) == "closed"  # the generator's finally ran early, through close()
        os.kill(pid, 0)  # still running: the container is reused once its runtime asks for more
        assert lines(pool.invoke_stream(PROBE, probe_event("/ticks?count=1")))[0]["n"] == 0
