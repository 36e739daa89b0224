"""Calling GET|HEAD /v1/r2/{path+} through its handler (events/BrainR2Function.json), and objects put for it."""

from __future__ import annotations

from typing import Any

from core.settings import get_settings
from tests.support.lambdas import StreamedResult, invoke_streamed, sample_event, with_request

R2 = "BrainR2Function"


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
