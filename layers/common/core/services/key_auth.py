"""Read-plane authentication: workspace API key → caller, with the key's rate limit applied.

Per request: an offline checksum test, one GetItem by SHA-256, the sliding-window
limiter's GetItem and conditional UpdateItem, and (at most once a minute per key) the
``lastUsedAt`` write (best-effort). Every refusal carries the same vague message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..auth import api_keys
from ..auth.bearer import bearer_token
from ..errors import Unauthorized
from ..ids import now_iso
from ..repositories.api_keys import ApiKeyRepository
from ..repositories.rate_limits import RateLimitRepository
from .rate_limit import RateStatus, SlidingWindowLimiter

logger = logging.getLogger(__name__)
VAGUE_MESSAGE = "Invalid or missing API key"


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
        clock: Callable[[], float] | None = None,
    ):
        self._keys = keys
        self._limiter = SlidingWindowLimiter(limits, clock)
        self._default_rate_limit = default_rate_limit

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
        status = self._limiter.take(f"key#{key_id}", limit)
        if status.new_minute:  # the key's first request counted in this clock minute: lastUsedAt within a minute
            try:
                self._keys.touch_last_used(key_hash, now_iso())
            except Exception:
                # Bookkeeping only: the request is already counted, so failing it would cost the caller a
                # place in the window for nothing. The key (or its hash) never goes to the log; its id may.
                logger.warning("lastUsedAt was not updated", extra={"apiKeyId": key_id})
        return status
