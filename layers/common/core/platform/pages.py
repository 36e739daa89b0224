"""One page of a partition's sort-key range and its cursor (issue 43): a listing reads at most a page and one record
more, whatever the partition holds, so ``nextCursor`` is null exactly on the last page.

The stores build their Query with ``range_query`` (they alone call DynamoDB); the services cut the page with
``cut``. A cursor is the last shown record's sort key (``core.platform.cursors``), checked against the range it
was made in: a cursor from another listing, or text no listing made, is 400 ``BAD_CURSOR``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core.platform import cursors
from core.platform.dynamo import to_item
from core.platform.errors import ValidationFailed

PAGE = 200  # the page of a listing that had none before issue 43, and its most: what every workspace held in one
# The next page's cursor of a listing whose body is a bare array (members, brands: service-api.md fixes the array,
# so the cursor cannot ride in it); absent on the last page.
NEXT_CURSOR = "Next-Cursor"


def cursor_header(cursor: str | None) -> dict[str, str]:
    """The response headers of a bare-array listing's page: ``Next-Cursor`` when more follow, none on the last."""
    return {NEXT_CURSOR: cursor} if cursor else {}


def after(cursor: str | None, prefix: str) -> str | None:
    """The sort key a cursor names, which must be in the listing's range (``prefix``); None without a cursor."""
    if cursor is None:
        return None
    position = cursors.decode(cursor)
    if not position.startswith(prefix) or len(position) == len(prefix):
        raise ValidationFailed(cursors.BAD_CURSOR)
    return position


def range_query(
    table: str, pk: str, prefix: str, limit: int, start: str | None, *, forward: bool = True
) -> dict[str, Any]:
    """A consistent Query of ``limit`` items of ``pk`` whose sort key begins with ``prefix``, after ``start``."""
    request: dict[str, Any] = {
        "TableName": table, "ConsistentRead": True, "Limit": limit, "ScanIndexForward": forward,
        "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
        "ExpressionAttributeValues": to_item({":pk": pk, ":prefix": prefix}),
    }  # fmt: skip
    if start is not None:
        request["ExclusiveStartKey"] = to_item({"pk": pk, "sk": start})
    return request


def cut[T](records: Sequence[T], limit: int, sort_key: Callable[[T], str]) -> tuple[list[T], str | None]:
    """The page (the first ``limit`` of ``limit`` + 1 read) and the next page's cursor (None on the last)."""
    shown = list(records[:limit])
    more = len(records) > limit and bool(shown)
    return shown, cursors.encode(sort_key(shown[-1])) if more else None
