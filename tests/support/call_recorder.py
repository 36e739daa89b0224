"""Recording the AWS calls of core's own clients: each call's operation and table, and what each Query read.

Used by the calls-per-request tests (tests/integration/shared/calls_per_request/); the numbers they assert are
the "Calls per request" table of docs/data-model.md.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    operation: str
    table: str  # the table's role ("main", "ledger", "keys", "rates"), "s3", or "" for other services
    together: bool = field(default=False, compare=False)  # issued with others (core.platform.together's pool)

    def __str__(self) -> str:
        return f"{self.operation}:{self.table}"


@dataclass
class Recorder:
    """Every AWS call of core's clients while recording, and each Query's (Count, ScannedCount)."""

    tables: dict[str, str]
    calls: list[Call] = field(default_factory=list)
    queries: list[tuple[int, int]] = field(default_factory=list)
    recording: bool = False

    def attach(self, client: Any) -> Any:
        client.meta.events.register("before-call.*.*", self._before, unique_id="calls-before")
        client.meta.events.register("after-call.*.*", self._after, unique_id="calls-after")
        return client

    def _table(self, service: str, params: dict[str, Any]) -> str:
        if service == "s3":
            return "s3"
        if service != "dynamodb":
            return ""
        raw = params.get("body")
        body = json.loads(raw) if isinstance(raw, bytes | str) and raw else {}
        name = body.get("TableName") or next(iter(body.get("RequestItems", {})), "")
        if not name and body.get("TransactItems"):
            name = next(iter(body["TransactItems"][0].values()))["TableName"]
        return self.tables.get(name, name)

    def _before(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        if self.recording:
            pooled = threading.current_thread().name.startswith("together")
            self.calls.append(Call(model.name, self._table(model.service_model.endpoint_prefix, params), pooled))

    def _after(self, model: Any, parsed: dict[str, Any], **_: Any) -> None:
        if self.recording and model.name == "Query":
            self.queries.append((parsed.get("Count", 0), parsed.get("ScannedCount", 0)))

    @contextmanager
    def record(self) -> Iterator[Recorder]:
        self.calls, self.queries, self.recording = [], [], True
        try:
            yield self
        finally:
            self.recording = False

    def issued_together(self) -> Counter[str]:
        """The calls made from the pool of reads issued together (one round trip for all of them)."""
        return Counter(str(c) for c in self.calls if c.together)

    def beyond_key_check(self) -> Counter[str]:
        """The calls other than the key check and rate counters, as ``Operation:table`` counts."""
        return Counter(str(c) for c in self.calls if c.table not in ("keys", "rates"))


def assert_exact_queries(recorder: Recorder) -> None:
    """Every Query read only items it returned (no filter discarded anything DynamoDB billed)."""
    assert recorder.queries and all(count == scanned for count, scanned in recorder.queries), recorder.queries
