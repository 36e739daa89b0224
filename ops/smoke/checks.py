"""Running named checks: one printed line each (name, ok or FAIL, milliseconds), and the exact comparisons they use.

A check is any callable that raises on a wrong answer. ``step`` is a check the rest depends on (the sign-in,
the publication): its failure stops the checks, never the cleanup.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

import httpx

JSON = "application/json; charset=utf-8"


class Mismatch(Exception):
    """A check's answer was not the expected one (raised rather than ``assert``: ``python -O`` keeps it)."""


class Aborted(Exception):
    """A step failed: what depends on it cannot run."""


@dataclass(frozen=True)
class Result:
    name: str
    ok: bool
    ms: float
    detail: str = ""


@dataclass
class Checks:
    out: TextIO | None = None  # None: sys.stdout, looked up at each print (pytest's capture replaces it)
    results: list[Result] = field(default_factory=list)

    def run[T](self, name: str, check: Callable[[], T]) -> T | None:
        """``check()``'s value, or None when it raised (printed and recorded as a failure)."""
        started = time.perf_counter()
        try:
            value = check()
        except Exception as failure:  # any failure of a check is that check's FAIL, and the run goes on
            self._record(Result(name, False, _ms(started), f"{type(failure).__name__}: {failure}"))
            return None
        self._record(Result(name, True, _ms(started)))
        return value

    def step[T](self, name: str, check: Callable[[], T]) -> T:
        """As ``run``, but a failure raises ``Aborted``: the checks after it need its value."""
        before = len(self.results)
        value = self.run(name, check)
        if not self.results[before].ok:
            raise Aborted(name)
        return value  # type: ignore[return-value]  # ok: the check returned it

    def _record(self, result: Result) -> None:
        self.results.append(result)
        line = f"{'ok' if result.ok else 'FAIL':4} {result.ms:8.0f} ms  {result.name}"
        print(line + (f"\n       {result.detail[:2000]}" if result.detail else ""), file=self.out, flush=True)

    @property
    def failed(self) -> list[Result]:
        return [result for result in self.results if not result.ok]


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def equal(actual: Any, expected: Any, what: str) -> None:
    if actual != expected:
        raise Mismatch(f"{what}: expected {expected!r}, got {actual!r}")


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise Mismatch(what)


def answer(response: httpx.Response, status: int, content_type: str | None = JSON) -> Any:
    """The JSON body of an answer that must have ``status`` and ``content_type`` (None: the body is not JSON)."""
    if response.status_code != status:
        raise Mismatch(f"{response.request.method} {response.request.url.path}: status {response.status_code}, "
                       f"expected {status}: {response.text[:300]}")  # fmt: skip
    equal(response.headers.get("content-type"), content_type, f"{response.request.url.path}: Content-Type")
    return json.loads(response.content) if content_type == JSON else None


def error(response: httpx.Response, status: int, code: str) -> None:
    """An error answer: exactly ``{"error": <a message>, "code": code}``, as JSON, with ``status``."""
    body = answer(response, status)
    equal(sorted(body), ["code", "error"], f"{response.request.url.path}: error body fields")
    equal(body["code"], code, f"{response.request.url.path}: error code")
    expect(isinstance(body["error"], str) and bool(body["error"]), "the error names nothing")
