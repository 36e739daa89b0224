"""Issuing signed media URLs (``POST /v1/media-urls``) for the caller's key.

Each path is checked exactly as ``/v1/r2`` checks it (the first refusal refuses the whole
request); nothing asks S3 whether the object exists (a missing one is a 404 when fetched).
The URL is absolute, on the scheme, host and stage the request came in on, so a page can put
it straight into ``<img src>`` or ``<video src>``; it carries the key's id, never the key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

from core.objects import signing as media_signing
from core.objects.models import SignedMediaUrl
from core.objects.paths import checked_path
from core.objects.service import ROUTE
from core.platform import rate_limit
from core.platform.ids import iso

_HOST = re.compile(r"(?:[A-Za-z0-9-]{1,63}\.)*[A-Za-z0-9-]{1,63}(?::[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](?::[0-9]{1,5})?")
_EXECUTE_API = re.compile(r"[a-z0-9]+\.execute-api\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?", re.IGNORECASE)


class MediaUrlService:
    def __init__(self, secret: Callable[[], bytes], clock: Callable[[], float] | None = None):
        self._secret = secret
        self._clock = clock

    def issue(self, api_key_id: str, paths: list[str], expires_in: int, base_url: str) -> list[SignedMediaUrl]:
        """One URL per path, in request order, all expiring together ``expires_in`` seconds from now."""
        checked = [checked_path(path, f"paths.{i}") for i, path in enumerate(paths)]  # all, before any signing
        expires = int((self._clock or rate_limit.now)()) + expires_in
        expires_at = iso(datetime.fromtimestamp(expires, UTC))
        secret = self._secret()
        return [
            SignedMediaUrl(
                path=path, url=signed_url(base_url, secret, api_key_id, path, expires), expires_at=expires_at
            )
            for path in checked
        ]


def signed_url(base_url: str, secret: bytes, api_key_id: str, path: str, expires: int) -> str:
    query = {"expires": str(expires), "kid": api_key_id, "sig": media_signing.sign(secret, api_key_id, path, expires)}
    return f"{base_url}{ROUTE}/{quote(path, safe='/')}?{urlencode(query)}"


def request_base_url(headers: Mapping[str, str] | None, request_context: Mapping[str, Any] | None) -> str:
    """``scheme://host[/stage]`` of the request: ``X-Forwarded-Proto`` (API Gateway always sets it; a local
    run has none, and is plain http), the ``Host`` header (else the context's domain), and the stage only
    on the execute-api domain (a custom domain's base path mapping hides it).

    The answer goes back to the caller who sent these headers, so a forged one only misleads its sender.
    """
    found = {k.lower(): v for k, v in (headers or {}).items()}
    context = request_context or {}
    proto = found.get("x-forwarded-proto", "http").split(",")[0].strip().lower()
    scheme = proto if proto in ("http", "https") else "https"
    host = found.get("host", "").strip()
    if not _HOST.fullmatch(host):
        host = str(context.get("domainName") or "localhost")
    stage = str(context.get("stage") or "")
    on_execute_api = _EXECUTE_API.fullmatch(host.split(":")[0]) is not None
    return f"{scheme}://{host}" + (f"/{quote(stage)}" if on_execute_api and stage else "")
