"""A DynamoDB client that counts what the ledger writes, item by item, and fails chosen calls (tests and bench)."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError


def _key(op: dict[str, Any]) -> tuple[str, str]:
    found = op.get("Key") or op["Item"]
    return found["pk"]["S"], found["sk"]["S"]


class CountingLedgerClient:
    """Passes every call to ``client``; counts calls by name and the writes of each item (``(pk, sk)``: every item
    of a committed transaction, every UpdateItem). ``fail(n, after=...)``: the n-th call from now fails with a
    throttling error, before it reaches the table, or (``after``) once it has committed: its answer is lost."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.exceptions = client.exceptions
        self.calls: collections.Counter[str] = collections.Counter()
        self.writes: collections.Counter[tuple[str, str]] = collections.Counter()
        self._failing: dict[int, bool] = {}
        self._made = 0

    def fail(self, nth: int, *, after: bool = False) -> None:
        self._failing[self._made + nth] = after

    def _call(self, name: str, send: Callable[[], Any], written: list[tuple[str, str]]) -> Any:
        self._made += 1
        self.calls[name] += 1
        after = self._failing.pop(self._made, None)
        if after is False:
            raise _throttled(name)
        found = send()
        self.writes.update(written)
        if after:
            raise _throttled(name)
        return found

    def transact_write_items(self, **kwargs: Any) -> Any:
        ops = [(kind, op) for entry in kwargs["TransactItems"] for kind, op in entry.items()]
        items = [_key(op) for kind, op in ops if kind != "ConditionCheck"]
        return self._call("TransactWriteItems", lambda: self._client.transact_write_items(**kwargs), items)

    def update_item(self, **kwargs: Any) -> Any:
        return self._call("UpdateItem", lambda: self._client.update_item(**kwargs), [_key(kwargs)])

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)
        label = "".join(part.title() for part in name.split("_"))
        return lambda **kwargs: self._call(label, lambda: method(**kwargs), [])


def _throttled(operation: str) -> ClientError:
    error = {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "injected"}}
    return ClientError(error, operation)  # type: ignore[arg-type]
