"""The platform's storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

# Only for the type checker: importing the models here would load them into every function that
# imports a service (the read plane's functions never load the management models: tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    from core.platform.idempotency_store import Replay
    from core.platform.rate_limit_store import Added, Buckets
    from core.platform.usage_counters import HandOn


class RateCounters(Protocol):
    """Sliding-window hit counters, one item per subject (``RateLimitStore``)."""

    def read(self, subject: str) -> Buckets: ...
    def add(
        self,
        subject: str,
        bucket: int,
        *,
        cap: int,
        seen: Buckets,
        drop: Iterable[int],
        expires_at: int,
        usage: Iterable[str] = (),
        drop_usage: Iterable[str] = (),
    ) -> Added: ...
    def tally(self, subject: str, usage: Iterable[str], *, expires_at: int) -> None: ...
    def hand_on(self, subject: str, closed: Mapping[int, Mapping[str, int]], to: HandOn) -> bool: ...


class IdempotencyRecords(Protocol):
    """Claims and stored responses for ``Idempotency-Key`` (``IdempotencyStore``)."""

    def claim(self, key_hash: str, request_hash: str, attempt: str) -> tuple[str, Replay | None]: ...
    def completion(self, key_hash: str, attempt: str, status: int, body: Any) -> dict[str, Any]: ...
    def complete(self, key_hash: str, attempt: str, status: int, body: Any) -> None: ...
    def release(self, key_hash: str, attempt: str) -> None: ...
