"""When to send a request again, and after how long: one policy for the sync and the async client.

Exponential backoff with full jitter (a uniform wait in ``[0, min(max_delay, base_delay · 2^n)]``,
so clients that failed together do not retry together), unless the service said ``Retry-After``,
which is honoured as given. Bounded twice: ``max_attempts`` sends and ``max_elapsed`` seconds in all
(a wait that would end past it is not started: the error is raised at once instead).

What is retried:
- 429 for every request: the service refuses it before doing anything (nothing is written or billed);
- 502, 503, 504 and a cut connection only when repeating the request is harmless: an idempotent
  method, or a POST that carries an ``Idempotency-Key`` (the service replays its first answer);
- a connection that could not be opened, for every request (nothing was sent).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import httpx

from ._operation import Operation
from .errors import TransportError, retry_after_seconds

NEVER_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_elapsed: float = 60.0
    statuses: frozenset[int] = field(default_factory=lambda: frozenset({429, 502, 503, 504}))
    always_retried: frozenset[int] = field(default_factory=lambda: frozenset({429}))

    def backoff(self, attempt: int) -> float:
        """Full jitter after the ``attempt``-th send (1-based)."""
        return random.uniform(0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))  # noqa: S311 (not crypto)

    def after_status(
        self, status: int, retry_after: str | None, *, retry_safe: bool, attempt: int, elapsed: float
    ) -> float | None:
        """Seconds to wait before sending again after ``status``; None to give up (and raise)."""
        if status not in self.statuses or not (retry_safe or status in self.always_retried):
            return None
        told = retry_after_seconds(retry_after)
        return self._bounded(told if told is not None else self.backoff(attempt), attempt, elapsed)

    def after_error(self, error: Exception, *, retry_safe: bool, attempt: int, elapsed: float) -> float | None:
        """Seconds to wait before sending again after a transport error; None to give up."""
        if not isinstance(error, httpx.TransportError):
            return None
        if not (retry_safe or isinstance(error, NEVER_SENT)):
            return None
        return self._bounded(self.backoff(attempt), attempt, elapsed)

    def _bounded(self, delay: float, attempt: int, elapsed: float) -> float | None:
        if attempt >= self.max_attempts or elapsed + delay > self.max_elapsed:
            return None
        return delay


NO_RETRY = RetryPolicy(max_attempts=1)


class Retries:
    """One call's attempts and clock, and what the policy says after each failed send.

    The sync and async loops share it, so they differ only in how they send, read and wait.
    """

    def __init__(self, policy: RetryPolicy, operation: Operation, request: httpx.Request):
        self.policy, self.operation, self.request = policy, operation, request
        self.started, self.attempt = time.monotonic(), 0

    def after_error(self, error: httpx.TransportError) -> float:
        """The wait before the next send after a transport error; raises ``TransportError`` to give up."""
        self.attempt += 1
        delay = self.policy.after_error(
            error, retry_safe=self.operation.retry_safe, attempt=self.attempt, elapsed=self._elapsed()
        )
        if delay is None:
            raise TransportError(f"{self.operation.method} {self.request.url.path}: {error!r}") from error
        return delay

    def after_answer(self, response: httpx.Response) -> float | None:
        """The wait before the next send after an answer outside ``operation.ok``; None to give up."""
        self.attempt += 1
        return self.policy.after_status(
            response.status_code,
            response.headers.get("retry-after"),
            retry_safe=self.operation.retry_safe,
            attempt=self.attempt,
            elapsed=self._elapsed(),
        )

    def _elapsed(self) -> float:
        return time.monotonic() - self.started
