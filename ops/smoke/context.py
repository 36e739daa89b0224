"""What the checks share: the target, the footprint, one HTTP client, and the credentials the run obtained."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from .checks import Checks
from .operator import Footprint
from .recorder import RecordingTransport
from .target import Target

TIMEOUT = httpx.Timeout(60.0, connect=10.0)  # a cold Lambda behind API Gateway answers in seconds, not a minute


@dataclass
class Smoke:
    target: Target
    footprint: Footprint
    checks: Checks
    http: httpx.Client
    transport: httpx.BaseTransport
    cookie: str = ""
    jwt: str = ""
    key: str = ""  # the raw workspace key minted for the read plane
    key_id: str = ""
    brand_id: str = ""

    @classmethod
    def open(cls, target: Target, footprint: Footprint, checks: Checks) -> Smoke:
        prefix = urlsplit(target.portal_url).path.rstrip("/")
        transport = RecordingTransport(footprint, prefix)
        http = httpx.Client(timeout=TIMEOUT, transport=transport, follow_redirects=False)
        return cls(target, footprint, checks, http, transport)

    @property
    def agent_id(self) -> str:
        """The published agent's id ("" before the publication)."""
        return self.footprint.agent_id or ""

    def portal(self, method: str, path: str, *, jwt: str | None = None, **options: Any) -> httpx.Response:
        """A portal call with the run's JWT (``jwt=""``: none)."""
        return self._call(method, self.target.portal_url + path, self.jwt if jwt is None else jwt, **options)

    def brain(self, method: str, path: str, *, key: str | None = None, **options: Any) -> httpx.Response:
        """A read-plane call with the run's key (``key=""``: none)."""
        return self._call(method, self.target.brain_url + path, self.key if key is None else key, **options)

    def _call(
        self, method: str, url: str, token: str, *, headers: dict[str, str] | None = None, **options: Any
    ) -> httpx.Response:
        authorization = {"Authorization": f"Bearer {token}"} if token else {}
        return self.http.request(method, url, headers=authorization | (headers or {}), **options)

    def close(self) -> None:
        self.http.close()
