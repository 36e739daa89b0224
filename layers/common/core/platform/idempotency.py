"""``Idempotency-Key`` support for POSTs that create things (workspaces, API keys) and for every writer's write.

The key is scoped to the caller and the route, and bound to the request body: a
retry with the same key and body replays the first answer (status and body); a
different body, or a retry while the first attempt still runs, is 409 CONFLICT.
An attempt known to have written nothing (a refusal, a throttle) is forgotten, so a
retry runs again at once; one that failed in doubt (a timeout, a 5xx: it may have
been applied) keeps its claim until the lock lapses, and the retry then runs with
the same attempt id, so it re-derives, rather than duplicates, what may exist.

The answer is the route's wire model. The record keeps its JSON body as ``json_response`` sends it (``wire()``:
the spec's field names, every field present) and the status the route declared (``run_claimed``'s ``status``,
passed down from the route: a service never chooses it), and a retry gets them back as stored (``Replay``).

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
from core.platform.idempotency_store import Replay, known_not_applied
from core.platform.ids import sha256_hex
from core.platform.models import ApiModel
from core.platform.ports import IdempotencyRecords

MAX_KEY_LENGTH = 255

__all__ = ["MAX_KEY_LENGTH", "Claim", "Idempotency", "Replay"]


def _as_stored(body: Any) -> Any:
    return body


@dataclass
class Claim:
    """This call's hold on an Idempotency-Key: its attempt id, and the write that completes it."""

    attempt: str
    _completion: Callable[[ApiModel], dict[str, Any]]
    handed_out: bool = field(default=False, init=False)

    def completion(self, answer: ApiModel) -> dict[str, Any]:
        """The transaction item completing the record with ``answer`` (its wire JSON, redacted, and the route's
        status). A work that takes it must write it in the same transaction as its own effect: once the work
        returns, it is taken as written."""
        self.handed_out = True
        return self._completion(answer)

    def found_stored(self) -> None:
        """The work found its effect already stored (by an earlier run of this attempt) and wrote nothing:
        the record is completed after it, as for a work that takes no completion."""
        self.handed_out = False


class Idempotency:
    def __init__(self, records: IdempotencyRecords):
        self._records = records

    def run_claimed[M: ApiModel](
        self,
        idempotency_key: str | None,
        *,
        scope: str,
        request: str,
        status: int,
        work: Callable[[Claim | None], M],
        redact: Callable[[Any], Any] = _as_stored,
    ) -> M | Replay:
        """``work`` once per (scope, key), its answer (the route's wire model) recorded with ``status``, the
        route's; a retry gets the ``Replay``. A work that does not take the record's completion (``Claim``) has
        the record completed after it. ``redact`` strips secrets from the body before storing."""
        if idempotency_key is None:
            return work(None)
        key_hash, attempt, stored = self._claim(idempotency_key, scope, request)
        if stored is not None:
            return stored
        claim = Claim(attempt, lambda made: self._records.completion(key_hash, attempt, status, redact(made.wire())))
        answer = self._attempt(key_hash, attempt, lambda: work(claim))
        if not claim.handed_out:
            self._records.complete(key_hash, attempt, status, redact(answer.wire()))
        return answer

    def _claim(self, idempotency_key: str, scope: str, request: str) -> tuple[str, str, Replay | None]:
        """(the key's hash, this claim's attempt id, None), or the stored answer's ``Replay`` for a retry."""
        if not 1 <= len(idempotency_key) <= MAX_KEY_LENGTH or not idempotency_key.isprintable():
            raise ValidationFailed(f"Idempotency-Key: must be 1-{MAX_KEY_LENGTH} printable characters")
        key_hash = sha256_hex(f"{scope}|{idempotency_key}")
        attempt, stored = self._records.claim(key_hash, sha256_hex(request), secrets.token_hex(16))
        return key_hash, attempt, stored

    def _attempt[R](self, key_hash: str, attempt: str, work: Callable[[], R]) -> R:
        try:
            return work()
        except BaseException as exc:
            if known_not_applied(exc):  # otherwise the claim stays until its lock lapses (see the module)
                self._records.release(key_hash, attempt)
            raise
