"""``/v1/r2``: the operation for an object path, the statuses it may answer, and what a HEAD tells."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from ._operation import Operation

R2_OK = (200, 206, 304, 307)
DOWNLOAD_OK = (*R2_OK, 416)  # a 416 ends a resumed download whose part was already whole
MAX_DOWNLOAD_ROUNDS = 64  # answers one download may take (capped ranges, restarts, cut connections)


@dataclass(frozen=True)
class ObjectInfo:
    """What ``HEAD /v1/r2/{path}`` tells about an object."""

    size: int
    etag: str | None
    content_type: str | None
    last_modified: str | None
    cache_control: str | None


def object_info(headers: httpx.Headers) -> ObjectInfo:
    length = headers.get("content-length", "0")
    return ObjectInfo(
        int(length) if length.isdigit() else 0,
        headers.get("etag"),
        headers.get("content-type"),
        headers.get("last-modified"),
        headers.get("cache-control"),
    )


def r2(method: str, path: str, headers: dict[str, str] | None = None, ok: tuple[int, ...] = R2_OK) -> Operation:
    """``path`` is workspace-relative (a feed post's keys are under ``projects/<agentId>/``)."""
    return Operation(method, "/v1/r2/{path}", ok=ok, path={"path": path}, headers=headers or {}, keep_slashes=True)
