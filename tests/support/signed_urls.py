"""Signed media URLs through the handlers: ask POST /v1/media-urls with a key, fetch /v1/r2 with what it signed."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.support.lambdas import HttpResult, StreamedResult, invoke, invoke_streamed, sample_event, with_request

MEDIA_URLS = "BrainMediaUrlsFunction"
R2 = "BrainR2Function"
UNSIGNED: dict[str, str | None] = {"Authorization": None}  # as API Gateway passes a signed URL: no key


def ask(key: str | None, body: Any, *, headers: dict[str, str | None] | None = None) -> HttpResult:
    """POST /v1/media-urls with ``key`` (None: no Authorization) and ``body`` (a dict is sent as JSON)."""
    auth = {"Authorization": f"Bearer {key}" if key is not None else None}
    text = body if isinstance(body, str) else json.dumps(body)
    return invoke(MEDIA_URLS, with_request(sample_event(MEDIA_URLS), headers=auth | (headers or {}), body=text))


def sign(key: str, *paths: str, expires_in: int | None = None, **extra: Any) -> list[str]:
    """The URLs of ``paths``, asserting the 200."""
    body: dict[str, Any] = {"paths": list(paths)} | ({"expiresIn": expires_in} if expires_in is not None else {})
    result = ask(key, body, **extra)
    assert result.status == 200, result.body
    urls = [entry["url"] for entry in result.json()["urls"]]
    register_signatures(*urls)
    return urls


def register_signatures(*urls: str) -> None:
    """A URL's ``sig`` makes it a bearer credential until it expires: no log line may hold one."""
    from tests.support import log_scan

    log_scan.register_secret(*(split(url)[1].get("sig") for url in urls))


def split(url: str) -> tuple[str, dict[str, str]]:
    """(the raw /v1/r2/... path, as a client sends it, and the query parameters)."""
    parts = urlsplit(url)
    return parts.path, dict(parse_qsl(parts.query))


def join(path: str, query: dict[str, str]) -> str:
    from urllib.parse import urlencode

    return f"https://example.test{path}?{urlencode(query)}"


def fetch(
    url: str, *, headers: dict[str, str | None] | None = None, method: str | None = None, read: int | None = None
) -> StreamedResult:
    """GET (or ``method``) the signed URL on /v1/r2 as API Gateway would pass it: no Authorization by default."""
    raw_path, query = split(url)
    event = with_request(
        sample_event(R2),
        path_parameters={"path": unquote(raw_path.removeprefix("/v1/r2/"))},
        query=query,
        headers=UNSIGNED | (headers or {}),
        method=method,
    )
    event["path"] = raw_path  # exactly as sent (percent-encoded)
    return invoke_streamed(R2, event, read=read)
