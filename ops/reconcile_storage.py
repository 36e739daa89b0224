"""``python -m ops reconcile-storage [--workspace ID] [--after PATH]``: recompute workspaces' storage counters from
S3's listing and fix drift (issue 43; docs/decisions.md, "Storage is a kept counter"). Also the migration of
workspaces whose objects were stored before the counter was kept.

For one workspace it walks the listing a page (1,000 keys) at a time beside the key records of the same range
(``WS#<id>#OBJECTS``): a listed key whose record is missing or of another size, and a record with bytes whose key is
not listed, is set to what S3 holds now (``HeadObject`` first: a key that changed since the page was listed is
taken as it is now) through the same conditioned transaction the notifications use, so the counter moves with it
and never twice. Each page prints a line with the drift fixed and the cursor (``after``): a run stopped anywhere
resumes with ``--after``, and running it again finds nothing to fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from core.objects.storage_store import StorageStore
from core.objects.write_store import LIST_PAGE, ObjectStore
from core.platform import main_table as keys
from core.platform.dynamo import from_item, to_item, translate_errors


def recorded_between(db: Any, table: str, workspace_id: str, after: str | None, last: str | None) -> Iterator[dict]:
    """The key records after ``after`` up to ``last`` (None: to the end), paged."""
    condition, values = "pk = :pk", {":pk": keys.objects_partition(workspace_id)}
    if last is not None:
        condition += " AND sk <= :last"
        values[":last"] = last
    request: dict[str, Any] = {"TableName": table, "KeyConditionExpression": condition, "Limit": LIST_PAGE,
                               "ExpressionAttributeValues": to_item(values), "ConsistentRead": True}  # fmt: skip
    if after:
        request["ExclusiveStartKey"] = to_item(keys.stored_object(workspace_id, after))
    while True:
        with translate_errors("Query"):
            page = db.query(**request)
        yield from (from_item(i) for i in page.get("Items", []))
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def reconcile(
    workspace_id: str, objects: ObjectStore, sizes: StorageStore, db: Any, table: str, *, after: str | None = None,
    say: Callable[[dict[str, Any]], None] = lambda line: print(json.dumps(line)),
) -> int:  # fmt: skip
    """Fix one workspace's drift from ``after`` on; returns the drift found (bytes the counter was off, summed)."""
    root, drift = f"workspaces/{workspace_id}/", 0
    more = True
    while more:
        listed, more = objects.page(root, limit=LIST_PAGE, after=root + after if after else None)
        held = {o.key[len(root) :]: o.size for o in listed}
        last = max(held) if more and held else None
        fixed = 0
        records = {r["sk"]: int(r.get("size", 0)) for r in recorded_between(db, table, workspace_id, after, last)}
        for path in sorted(set(held) | {p for p, size in records.items() if size}):
            if held.get(path, 0) == records.get(path, 0) and (path in records or path not in held):
                continue
            head = objects.head(root + path)  # as S3 holds it now
            now = head.size if head else 0
            before = sizes.record(workspace_id, path)
            if sizes.observe(workspace_id, path, now):
                fixed += now - (before.size if before else 0)
        drift += fixed
        after = last
        say({"workspaceId": workspace_id, "listed": len(held), "drift": fixed, "after": after})
    return drift


def main(workspace_id: str | None, after: str | None, s3: Any, dynamodb: Any, names: dict[str, str]) -> int:
    objects, sizes = ObjectStore(s3, names["bucket"]), StorageStore(dynamodb, names["main"])
    ids = [workspace_id] if workspace_id else list(_workspaces(dynamodb, names["main"]))
    total = sum(reconcile(ws, objects, sizes, dynamodb, names["main"], after=after if workspace_id else None)
                for ws in ids)  # fmt: skip
    print(json.dumps({"workspaces": len(ids), "drift": total}))
    return 0


def _workspaces(db: Any, table: str) -> Iterator[str]:
    """Every workspace's id (a Scan for the workspace items, paged)."""
    request: dict[str, Any] = {"TableName": table, "FilterExpression": "sk = :ws", "ProjectionExpression": "pk",
                               "ExpressionAttributeValues": to_item({":ws": "WS"})}  # fmt: skip
    while True:
        page = db.scan(**request)
        yield from (from_item(i)["pk"].removeprefix("WS#") for i in page.get("Items", []))
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
