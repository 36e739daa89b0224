"""``Idempotency-Key`` support for POSTs that create things (workspaces, API keys).

The key is scoped to the caller and the route, and bound to the request body: a
retry with the same key and body replays the first response (status and body); a
different body, or a retry while the first attempt still runs, is 409 CONFLICT.
An attempt known to have written nothing (a refusal, a throttle) is forgotten, so a
retry runs again at once; one that failed in doubt (a timeout, a 5xx: it may have
been applied) keeps its claim until the lock lapses, and the retry then runs with
the same attempt id, so it re-derives, rather than duplicates, what may exist.

Each claim carries a random ``attempt`` id, given to the work and replayed with the
response: what the work derives from it (a minted key's secret) is reproducible for
as long as the record lives, and never again after it expires.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.platform.errors import ValidationFailed
from core.platform.idempotency_store import known_not_applied
from core.platform.ids import sha256_hex
from core.platform.ports import IdempotencyRecords

MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class Outcome:
    status: int
    body: Any
    replayed: bool
    attempt: str | None  # the claim's random id (None without an Idempotency-Key)


@dataclass
class Claim:
    """This call's hold on an Idempotency-Key: its attempt id, and the write that completes it."""

    attempt: str
    _completion: Callable[[int, Any], dict[str, Any]]
    handed_out: bool = field(default=False, init=False)

    def completion(self, status: int, body: Any) -> dict[str, Any]:
        """The transaction item completing the record with this response (redacted). A work that takes it
        must write it in the same transaction as its own effect: once the work returns, it is taken as written."""
        self.handed_out = True
        return self._completion(status, body)

    def found_stored(self) -> None:
        """The work found its effect already stored (by an earlier run of this attempt) and wrote nothing:
        the record is completed after it, as in ``run``."""
        self.handed_out = False


class Idempotency:
    def __init__(self, records: IdempotencyRecords):
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
        return self.run_claimed(
            idempotency_key, scope=scope, request=request, redact=redact,
            work=lambda claim: work(claim.attempt if claim else None),
        )  # fmt: skip

    def run_claimed(
        self,
        idempotency_key: str | None,
        *,
        scope: str,
        request: str,
        work: Callable[[Claim | None], tuple[int, Any]],
        redact: Callable[[Any], Any] = lambda body: body,
    ) -> Outcome:
        """``run`` for a work that completes the record in its own transaction (``Claim.completion``);
        if it does not take the completion, the record is completed after it, as in ``run``."""
        if idempotency_key is None:
            status, body = work(None)
            return Outcome(status, body, replayed=False, attempt=None)
        if not 1 <= len(idempotency_key) <= MAX_KEY_LENGTH or not idempotency_key.isprintable():
            raise ValidationFailed(f"Idempotency-Key: must be 1-{MAX_KEY_LENGTH} printable characters")
        key_hash = sha256_hex(f"{scope}|{idempotency_key}")
        attempt, stored = self._records.claim(key_hash, sha256_hex(request), secrets.token_hex(16))
        if stored is not None:
            return Outcome(stored[0], stored[1], replayed=True, attempt=stored[2])
        claim = Claim(attempt, lambda s, b: self._records.completion(key_hash, attempt, s, redact(b)))
        try:
            status, body = work(claim)
        except BaseException as exc:
            if known_not_applied(exc):  # otherwise the claim stays until its lock lapses (see the module)
                self._records.release(key_hash, attempt)
            raise
        if not claim.handed_out:
            self._records.complete(key_hash, attempt, status, redact(body))
        return Outcome(status, body, replayed=False, attempt=attempt)
