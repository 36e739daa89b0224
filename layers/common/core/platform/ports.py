"""The storage interfaces services depend on: one ``Protocol`` per repository, holding only what services call.

A service is typed against these, never against a concrete repository, so a test can hand it a small
fake and mypy still checks that the fake has the right methods (no ``type: ignore``). The concrete
classes in ``core.repositories`` satisfy them structurally, without inheriting: mypy checks that where
``core.deps`` wires them in. Names are plural nouns (what is stored), used qualified (``ports.ApiKeys``),
so a signature reads as "something that stores API keys", not as one implementation. A service that
needs a small part of one (the read plane's key check: ``ApiKeyLookup``) names that part, so its fakes stay small.

To give a service a new storage call: add the method here with the repository's signature, then use it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

# Only for the type checker: importing the models here would load them into every function that
# imports a service (the read plane's functions never load the management models: tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    from core.platform.rate_limit_store import Added, Buckets


class RateCounters(Protocol):
    """Sliding-window hit counters, one item per subject (``RateLimitStore``)."""

    def read(self, subject: str) -> Buckets: ...
    def add(
        self, subject: str, bucket: int, *, cap: int, seen: Buckets, drop: Iterable[int], expires_at: int
    ) -> Added: ...


class IdempotencyRecords(Protocol):
    """Claims and stored responses for ``Idempotency-Key`` (``IdempotencyStore``)."""

    def claim(self, key_hash: str, request_hash: str, attempt: str) -> tuple[str, tuple[int, Any, str] | None]: ...
    def completion(self, key_hash: str, attempt: str, status: int, body: Any) -> dict[str, Any]: ...
    def complete(self, key_hash: str, attempt: str, status: int, body: Any) -> None: ...
    def release(self, key_hash: str, attempt: str) -> None: ...
