"""Fixtures of r2's tests: the clip in moto S3, a response cap, S3 bodies seen closed, smaller chunks.

``small_chunks`` is not autouse: every module here but test_chunks.py (the real 1 MiB chunks) asks for it.
"""

from __future__ import annotations

import pytest
from botocore.response import StreamingBody

from core.objects import service as media
from core.platform import providers as platform_providers
from local.gateway.events import SAMPLE_WORKSPACE_ID
from tests.support.r2 import CAP, CLIP, DATA, put


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """128 KiB chunks, so the clip spans three (r2 streams 1 MiB chunks: test_chunks.py, which leaves them)."""
    monkeypatch.setattr(media, "CHUNK_BYTES", 128 * 1024)


@pytest.fixture
def video(tenant, aws) -> str:
    return put(aws, SAMPLE_WORKSPACE_ID, CLIP, DATA, ContentType="video/mp4")


@pytest.fixture
def capped(video: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The clip, served with a response cap of CAP bytes."""
    monkeypatch.setenv("R2_MAX_RESPONSE_BYTES", str(CAP))
    platform_providers.reset()
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
