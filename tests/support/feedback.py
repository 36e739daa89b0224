"""Ratings of turns (``POST /v1/agent/{agentId}/turns/{turnId}/feedback``): seeding a turn's receipt in the
documented layout (docs/data-model.md), calling the function, and reading back what a rating stored.

``put_receipt`` writes the receipt as the chat's turn log does (``core.insights.records.ReceiptRecord`` at
``main_table.turn_receipt``), so the feedback's tests do not depend on a chat turn; tests that do want one (the HTTP
test) chat first.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from core.insights.records import COUNTERS, ReceiptRecord
from core.platform import main_table as keys
from core.platform.dynamo import from_item, to_item
from core.platform.ids import iso, new_id
from core.platform.retention import RECEIPT_DAYS
from core.platform.settings import get_settings
from tests.support.iam_check import calling
from tests.support.lambdas import HttpResult, invoke, sample_event, with_request

FEEDBACK = "BrainFeedbackFunction"
TURN_NOT_FOUND = {"error": "Turn not found", "code": "NOT_FOUND"}
SOURCES = [{"itemId": "itm_1", "postId": None, "name": "Waxed rain jacket", "r2Key": None, "where": "page 1"}]


def put_receipt(
    db: Any,
    workspace_id: str,
    agent_id: str,
    client: str,
    *,
    turn_id: str | None = None,
    created_at: datetime | None = None,
    stored: bool = False,
    table: str | None = None,
) -> ReceiptRecord:
    """A delivered turn's receipt: made ``created_at`` (now), with its prompt and reply when ``stored``."""
    at = created_at or datetime.now(UTC)
    receipt = ReceiptRecord(
        workspace_id=workspace_id, agent_id=agent_id, turn_id=turn_id or new_id("turn"), thread_key=new_id("thr"),
        client=client, key_id=None, created_at=iso(at), day=iso(at)[:10], sources=SOURCES,
        prompt="Do you have a rain jacket?" if stored else None, reply="Yes: the waxed one." if stored else None,
        expires_at=int((at + timedelta(days=RECEIPT_DAYS)).timestamp()),
    )  # fmt: skip
    item = keys.turn_receipt(agent_id, receipt.turn_id) | receipt.attributes()
    db.put_item(TableName=table or get_settings().main_table, Item=to_item(item))
    return receipt


def rate(
    agent_id: str, turn_id: str, body: dict[str, Any] | str, *, key: str | None = None, **changes: Any
) -> HttpResult:
    """The feedback function called with this body (a dict as JSON, a string as it is)."""
    auth = {"Authorization": f"Bearer {key}"} if key is not None else {}
    event = with_request(
        sample_event(FEEDBACK), path_parameters={"agentId": agent_id, "turnId": turn_id}, headers=auth,
        body=body if isinstance(body, str) else json.dumps(body), **changes,
    )  # fmt: skip
    return invoke(FEEDBACK, event)


def receipt_of(db: Any, agent_id: str, turn_id: str, table: str | None = None) -> dict[str, Any] | None:
    found = db.get_item(TableName=table or get_settings().main_table, Key=to_item(keys.turn_receipt(agent_id, turn_id)),
                        ConsistentRead=True).get("Item")  # fmt: skip
    return from_item(found) if found else None


def partition(db: Any, pk: str, table: str | None = None) -> list[dict[str, Any]]:
    """Every item of one partition, in key order."""
    rows: list[dict[str, Any]] = []
    request: dict[str, Any] = {
        "TableName": table or get_settings().main_table, "ConsistentRead": True,
        "KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": to_item({":pk": pk}),
    }  # fmt: skip
    while True:
        page = db.query(**request)
        rows += [from_item(item) for item in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return rows
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def feedback_rows(db: Any, agent_id: str, table: str | None = None) -> list[dict[str, Any]]:
    return partition(db, keys.feedback_partition(agent_id), table)


def day_counters(db: Any, agent_id: str, day: str, table: str | None = None) -> dict[str, int]:
    """The day's counters, the shards summed (as the insights' reader sums them)."""
    totals = dict.fromkeys(COUNTERS, 0)
    for row in partition(db, keys.insights_partition(agent_id), table):
        if row["sk"].startswith(f"DAY#{day}#"):
            for name in COUNTERS:
                totals[name] += int(row.get(name, 0))
    return totals


def assert_rating_stored(db: Any, receipt: ReceiptRecord, rating: str | None, table: str | None = None) -> None:
    """The receipt, its rows and its day's up/down say one thing: ``rating`` (None: none), counted once."""
    stored = receipt_of(db, receipt.agent_id, receipt.turn_id, table)
    assert stored is not None
    assert stored.get("rating") == rating, stored
    rows = feedback_rows(db, receipt.agent_id, table)
    mine = [row for row in rows if row.get("turnId") == receipt.turn_id]
    if rating is None:
        assert mine == [] and "ratedAt" not in stored and "comment" not in stored, (mine, stored)
    else:
        tail = f"{stored['ratedAt']}#{receipt.turn_id}"
        expected = {f"ALL#{tail}", f"{rating.upper()}#{tail}", f"VISITOR#{receipt.client}#{tail}"}
        assert {row["sk"] for row in mine} == expected, mine
        assert all(row["rating"] == rating and row["createdAt"] == stored["ratedAt"] for row in mine), mine
    counted = day_counters(db, receipt.agent_id, receipt.day, table)
    assert (counted["up"], counted["down"]) == (int(rating == "up"), int(rating == "down")), counted


@contextmanager
def as_the_test() -> Iterator[None]:
    """Calls made by the test itself while a handler runs (another visitor's write "meanwhile"): not the function's,
    so not judged against its IAM policy."""
    token = calling.set(None)
    try:
        yield
    finally:
        calling.reset(token)
