"""Read-plane authentication: workspace API key → caller, with the key's rate limit applied.

Per request: an offline checksum test, one GetItem by SHA-256, one conditional
UpdateItem on the rate-limit counter, and (at most once a minute per key) the
``lastUsedAt`` write. Every refusal carries the same vague message.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..auth import api_keys
from ..auth.bearer import bearer_token
from ..errors import RateLimited, Unauthorized
from ..ids import now_iso
from ..repositories.api_keys import ApiKeyRepository
from ..repositories.rate_limits import RateLimitRepository

VAGUE_MESSAGE = "Invalid or missing API key"
WINDOW_SECONDS = 60


@dataclass(frozen=True)
class RateStatus:
    limit: int
    remaining: int
    reset_seconds: int

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
        }


@dataclass(frozen=True)
class WorkspaceCaller:
    workspace_id: str
    api_key_id: str
    rate: RateStatus


class KeyAuthenticator:
    def __init__(
        self,
        keys: ApiKeyRepository,
        limits: RateLimitRepository,
        default_rate_limit: int,
        clock: Callable[[], float] = time.time,
    ):
        self._keys = keys
        self._limits = limits
        self._default_rate_limit = default_rate_limit
        self._clock = clock

    def authenticate(self, headers: Mapping[str, str] | None) -> WorkspaceCaller:
        raw = bearer_token(headers)
        # The checksum turns away typos, portal JWTs and scanners' noise without a lookup.
        if raw is None or not api_keys.is_well_formed(raw):
            raise Unauthorized(VAGUE_MESSAGE)
        key_hash = api_keys.hash_key(raw)
        record = self._keys.get_by_hash(key_hash)
        if record is None or record.revoked_at is not None:
            raise Unauthorized(VAGUE_MESSAGE)
        rate = self._count_request(record.id, key_hash, record.rate_limit or self._default_rate_limit)
        return WorkspaceCaller(workspace_id=record.workspace_id, api_key_id=record.id, rate=rate)

    def _count_request(self, key_id: str, key_hash: str, limit: int) -> RateStatus:
        now = self._clock()
        window = int(now // WINDOW_SECONDS)
        window_end = (window + 1) * WINDOW_SECONDS
        reset = max(1, math.ceil(window_end - now))
        hits = self._limits.hit(f"key#{key_id}#{window}", limit, expires_at=window_end + WINDOW_SECONDS)
        if hits is None:
            status = RateStatus(limit=limit, remaining=0, reset_seconds=reset)
            raise RateLimited(headers=status.headers() | {"Retry-After": str(reset)})
        if hits == 1:  # first request of this key in this window: keeps lastUsedAt within a minute
            self._keys.touch_last_used(key_hash, now_iso())
        return RateStatus(limit=limit, remaining=max(0, limit - hits), reset_seconds=reset)
