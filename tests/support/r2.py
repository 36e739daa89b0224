"""Calling GET|HEAD /v1/r2/{path+} through its handler (events/BrainR2Function.json), and objects put for it."""

from __future__ import annotations

import re
from typing import Any

from core.platform.settings import get_settings
from tests.support.brain import JSON
from tests.support.lambdas import StreamedResult, invoke_streamed, sample_event, with_request

R2 = "BrainR2Function"
DATA = bytes(range(256)) * 1200  # 307,200 bytes: three chunks of at most 128 KiB
HTTP_DATE = re.compile(r"^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$")
CLIP = "projects/prj_1/media/clip.mp4"
CAP = 100_000  # R2_MAX_RESPONSE_BYTES in the tests of the cap: the clip is three times larger


def assert_error(result: StreamedResult, status: int, code: str) -> dict[str, Any]:
    assert (result.status, result.header("Content-Type")) == (status, JSON), result.body
    body = result.json()
    assert body["code"] == code and set(body) == {"error", "code"}
    return body


def vary(result: StreamedResult) -> set[str]:
    return {token.strip().lower() for token in (result.header("Vary") or "").split(",")}


def put(aws: Any, workspace_id: str, path: str, body: bytes, **extra: Any) -> str:
    result = aws.s3.put_object(
        Bucket=get_settings().content_bucket, Key=f"workspaces/{workspace_id}/{path}", Body=body, **extra
    )
    return result["ETag"]


def request(path: str | None = None, *, raw_path: str | None = None, **changes: Any) -> dict[str, Any]:
    event = with_request(sample_event(R2), path_parameters={"path": path} if path else None, **changes)
    if raw_path is not None:  # exactly as the client sent it: API Gateway keeps it percent-encoded
        event["path"] = raw_path
    return event


def get(
    path: str | None = None, *, raw_path: str | None = None, read: int | None = None, **changes: Any
) -> StreamedResult:
    return invoke_streamed(R2, request(path, raw_path=raw_path, **changes), read=read)
