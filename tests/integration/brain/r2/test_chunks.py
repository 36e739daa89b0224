"""r2 passes S3's body on in 1 MiB chunks: fewer, larger writes through the runtime (bench/stream_memory.py
measured 128 KiB chunks at about 0.5x raw boto3's throughput from the same endpoint, 1 MiB at about 0.6-0.7x),
and memory stays flat: one chunk at a time, never the whole object."""

from __future__ import annotations

from local.gateway.events import SAMPLE_WORKSPACE_ID
from tests.support.r2 import get, put

MIB = 1024 * 1024


def test_a_large_object_streams_in_one_mebibyte_chunks(tenant, aws) -> None:
    data = bytes(range(256)) * (MIB // 256) * 2 + b"tail"
    put(aws, SAMPLE_WORKSPACE_ID, "assets/two-mib.bin", data, ContentType="application/octet-stream")
    result = get("assets/two-mib.bin")
    assert result.status == 200 and result.body == data
    assert [len(chunk) for chunk in result.chunks] == [MIB, MIB, 4]


def test_a_reader_that_takes_one_chunk_holds_at_most_one_mebibyte(tenant, aws) -> None:
    data = b"x" * (3 * MIB)
    put(aws, SAMPLE_WORKSPACE_ID, "assets/three-mib.bin", data)
    result = get("assets/three-mib.bin", read=1)
    assert [len(chunk) for chunk in result.chunks] == [MIB]
