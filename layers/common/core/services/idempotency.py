"""``Idempotency-Key`` support for POSTs that create things (workspaces, API keys).

The key is scoped to the caller and the route, and bound to the request body: a
retry with the same key and body replays the first response (status and body); a
different body, or a retry while the first attempt still runs, is 409 CONFLICT.
Failed attempts are not remembered, so a retry after a 4xx/5xx runs again.

Each claim carries a random ``attempt`` id, given to the work and replayed with the
response: what the work derives from it (a minted key's secret) is reproducible for
as long as the record lives, and never again after it expires.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import ValidationFailed
from ..repositories.idempotency import IdempotencyRepository

MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class Outcome:
    status: int
    body: Any
    replayed: bool
    attempt: str | None  # the claim's random id (None without an Idempotency-Key)


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


class Idempotency:
    def __init__(self, records: IdempotencyRepository):
        self._records = records

    def run(
        self,
        idempotency_key: str | None,
        *,
        scope: str,
        request: str,
        work: Callable[[str | None], tuple[int, Any]],
        redact: Callable[[Any], Any] = lambda body: body,
    ) -> Outcome:
        """Run ``work`` once per (scope, key); it gets the attempt id. ``redact`` strips secrets before storing."""
        if idempotency_key is None:
            status, body = work(None)
            return Outcome(status, body, replayed=False, attempt=None)
        if not 1 <= len(idempotency_key) <= MAX_KEY_LENGTH or not idempotency_key.isprintable():
            raise ValidationFailed(f"Idempotency-Key: must be 1-{MAX_KEY_LENGTH} printable characters")
        key_hash = _sha256(f"{scope}|{idempotency_key}")
        attempt = secrets.token_hex(16)
        stored = self._records.claim(key_hash, _sha256(request), attempt)
        if stored is not None:
            return Outcome(stored[0], stored[1], replayed=True, attempt=stored[2])
        try:
            status, body = work(attempt)
        except BaseException:
            self._records.release(key_hash)
            raise
        self._records.complete(key_hash, status, redact(body))
        return Outcome(status, body, replayed=False, attempt=attempt)
