"""``TransactWriteItems`` built step by step, with each conditioned step named, and committed with its retries.

A write that must keep several items in agreement (a post's row and its filter copies, an agent and its slug
claim and the counters naming it) is one transaction: all of it or none. Steps carry a name when their
condition means something to the caller (``"slug"``: the slug is taken), so a cancelled transaction is
answered with the first named step whose condition failed, not with DynamoDB's positional reasons.

DynamoDB also cancels a transaction that meets another one in flight on the same item
(``TransactionConflict``); nothing was written, so it is sent again after a short, jittered wait.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.platform.dynamo import StorageUnavailable, to_item, translate_errors
from core.platform.errors import Conflict, DomainError

MAX_ITEMS = 100  # DynamoDB's limit per transaction
CONFLICT_ATTEMPTS = 6
NEW = "attribute_not_exists(pk)"
EXISTS = "attribute_exists(pk)"


IN_PROGRESS = "A request with this Idempotency-Key is in progress; retry shortly"


class Changed(Conflict):
    """What a write read has changed since (another write came first): read again and retry, or answer 409."""


@dataclass(frozen=True)
class Also:
    """What a write carries besides its own items, committed with them or not at all: its audit entry and, with an
    Idempotency-Key, the completion of the key's record (so a retry can never find the effect without the record)."""

    audit: Mapping[str, Any] | None = None
    completion: Mapping[str, Any] | None = None


def refusal(failed: str, refusals: Mapping[str, DomainError] | None = None) -> DomainError:
    """The error answering the failed step ``failed`` (a completion lost to a twin: 409), made afresh: the
    refusals given are shared across threads."""
    given = ({"completion": Conflict(IN_PROGRESS)} | dict(refusals or {}))[failed]
    return type(given)(given.message, headers=dict(given.headers))


class Transaction:
    def __init__(self, table: str):
        self._table = table
        self.items: list[dict[str, Any]] = []
        self._names: list[str | None] = []

    def _add(self, kind: str, body: dict[str, Any], name: str | None) -> Transaction:
        self.items.append({kind: {"TableName": self._table} | body})
        self._names.append(name)
        return self

    @staticmethod
    def _expression(
        condition: str | None, values: Mapping[str, Any] | None, names: Mapping[str, str] | None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if condition:
            body["ConditionExpression"] = condition
        if values:
            body["ExpressionAttributeValues"] = to_item(values)
        if names:
            body["ExpressionAttributeNames"] = dict(names)
        return body

    def put(
        self,
        item: Mapping[str, Any],
        *,
        condition: str | None = None,
        values: Mapping[str, Any] | None = None,
        names: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> Transaction:
        return self._add("Put", {"Item": to_item(item)} | self._expression(condition, values, names), name)

    def update(
        self,
        key: Mapping[str, Any],
        expression: str,
        *,
        condition: str | None = None,
        values: Mapping[str, Any] | None = None,
        names: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> Transaction:
        body = {"Key": to_item(key), "UpdateExpression": expression} | self._expression(condition, values, names)
        return self._add("Update", body, name)

    def delete(
        self,
        key: Mapping[str, Any],
        *,
        condition: str | None = None,
        values: Mapping[str, Any] | None = None,
        names: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> Transaction:
        return self._add("Delete", {"Key": to_item(key)} | self._expression(condition, values, names), name)

    def check(
        self,
        key: Mapping[str, Any],
        condition: str,
        *,
        values: Mapping[str, Any] | None = None,
        names: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> Transaction:
        return self._add("ConditionCheck", {"Key": to_item(key)} | self._expression(condition, values, names), name)

    def extend(self, items: Iterable[Mapping[str, Any]], name: str | None = None) -> Transaction:
        """Items built elsewhere, already in DynamoDB's form: an idempotency record's completion, an audit entry."""
        for item in items:
            self.items.append(dict(item))
            self._names.append(name)
        return self

    def carry(self, also: Also | None) -> Transaction:
        if also is not None:
            self.extend([also.audit] if also.audit else [])
            self.extend([also.completion] if also.completion else [], name="completion")
        return self

    def commit_or_raise(self, client: Any, refusals: Mapping[str, DomainError] | None = None) -> None:
        """``commit``; a named step's failed condition raises its refusal (a completion lost to a twin: 409)."""
        failed = self.commit(client)
        if failed is not None:
            raise refusal(failed, refusals)

    def commit(self, client: Any) -> str | None:
        """Write every step at once. None when written; else the name of the first named step whose condition
        cancelled it (nothing was written). A cancellation no named step explains is storage trouble."""
        if len(self.items) > MAX_ITEMS:
            raise ValueError(f"a transaction holds at most {MAX_ITEMS} items, not {len(self.items)}")
        with translate_errors("TransactWriteItems"):
            for attempt in range(CONFLICT_ATTEMPTS):
                try:
                    client.transact_write_items(TransactItems=self.items)
                    return None
                except client.exceptions.TransactionCanceledException as exc:
                    codes = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]
                    failed = [n for n, c in zip(self._names, codes, strict=False) if c == "ConditionalCheckFailed"]
                    if any(failed):
                        return next(n for n in failed if n)
                    if "TransactionConflict" not in codes or attempt == CONFLICT_ATTEMPTS - 1:
                        raise
                time.sleep(random.uniform(0, 0.02 * 2**attempt))  # noqa: S311 - jitter, not a secret
        raise StorageUnavailable("Storage is busy; try again")  # unreachable: the last attempt raised
