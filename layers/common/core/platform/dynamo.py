"""Small, dependency-free DynamoDB helpers: attribute-value marshalling and error translation.

Hand-rolled rather than boto3's TypeSerializer so numbers come back as ``int``/``float``
(not ``Decimal``) and nothing heavy is imported on the cold path.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from core.platform.errors import DomainError

logger = logging.getLogger(__name__)
BATCH_WRITE_LIMIT = 25


class StorageUnavailable(DomainError):
    """A storage call failed for a reason the caller cannot fix (throttling, misconfiguration)."""


def to_av(value: Any) -> dict[str, Any]:
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | float):
        return {"N": repr(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bytes):
        return {"B": value}
    if isinstance(value, Mapping):
        return {"M": {k: to_av(v) for k, v in value.items()}}
    if isinstance(value, list | tuple):
        return {"L": [to_av(v) for v in value]}
    raise TypeError(f"cannot store {type(value).__name__} in DynamoDB")


def from_av(av: Mapping[str, Any]) -> Any:
    ((kind, value),) = av.items()
    if kind in {"S", "B"}:
        return value
    if kind == "N":
        return int(value) if value.lstrip("-").isdigit() else float(value)
    if kind == "BOOL":
        return value
    if kind == "NULL":
        return None
    if kind == "M":
        return {k: from_av(v) for k, v in value.items()}
    if kind == "L":
        return [from_av(v) for v in value]
    if kind in ("SS", "BS"):
        return list(value)
    if kind == "NS":
        return [from_av({"N": v}) for v in value]
    raise TypeError(f"unknown attribute type {kind}")


def to_item(attributes: Mapping[str, Any]) -> dict[str, Any]:
    return {k: to_av(v) for k, v in attributes.items()}


def from_item(item: Mapping[str, Any]) -> dict[str, Any]:
    return {k: from_av(v) for k, v in item.items()}


def error_code(exc: Exception) -> str:
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


@contextmanager
def translate_errors(operation: str) -> Iterator[None]:
    """Let domain errors through; turn any botocore failure into ``StorageUnavailable``."""
    try:
        yield
    except DomainError:
        raise
    except Exception as exc:
        if type(exc).__module__.startswith("botocore"):
            logger.error("storage call failed", extra={"operation": operation, "awsError": error_code(exc)})
            raise StorageUnavailable() from exc
        raise


def written_if(client: Any, operation: str, write: Callable[[], Any]) -> bool:
    """Run one conditional ``write``: False if its condition failed (nothing written), storage failures as
    ``translate_errors`` turns them."""
    with translate_errors(operation):
        try:
            write()
        except client.exceptions.ConditionalCheckFailedException:
            return False
    return True


def get_item(client: Any, table: str, key: Mapping[str, Any], *, consistent: bool) -> dict[str, Any] | None:
    """One GetItem. ``consistent`` is said at every call: a writer (or a check that must see a revocation at once)
    reads strongly consistently; the read plane's published data may be a moment old, at half the price."""
    with translate_errors("GetItem"):
        item = client.get_item(TableName=table, Key=to_item(key), ConsistentRead=consistent).get("Item")
    return from_item(item) if item else None


def batch_put(client: Any, table: str, items: list[dict[str, Any]]) -> None:
    """Write items in batches of 25, retrying (with backoff) what DynamoDB leaves unprocessed."""
    _batch_write(client, table, items, lambda item: {"PutRequest": {"Item": to_item(item)}})


def batch_delete(client: Any, table: str, keys: list[dict[str, Any]]) -> None:
    """Delete items in batches of 25 (deleting an absent item is a no-op, so this is idempotent)."""
    _batch_write(client, table, keys, lambda key: {"DeleteRequest": {"Key": to_item(key)}})


def _batch_write(
    client: Any, table: str, values: list[dict[str, Any]], request: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    """BatchWriteItem 25 requests at a time, re-sending the unprocessed ones with backoff (8 tries per batch).
    Each batch is marshalled just before it is sent, so a value DynamoDB cannot store fails where it did."""
    for start in range(0, len(values), BATCH_WRITE_LIMIT):
        pending: dict[str, Any] = {table: [request(v) for v in values[start : start + BATCH_WRITE_LIMIT]]}
        with translate_errors("BatchWriteItem"):
            for attempt in range(8):
                pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
                if not pending:
                    break
                time.sleep(min(0.05 * 2**attempt, 2.0))
            else:
                raise StorageUnavailable("Storage is busy; try again")


def batch_get(client: Any, table: str, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every existing item of ``keys`` (any order), 100 per request, retrying unprocessed keys."""
    found: list[dict[str, Any]] = []
    unique = list({tuple(sorted(k.items())): k for k in keys}.values())
    for start in range(0, len(unique), 100):
        pending: dict[str, Any] = {
            table: {"Keys": [to_item(k) for k in unique[start : start + 100]], "ConsistentRead": True}
        }
        with translate_errors("BatchGetItem"):
            for attempt in range(8):
                result = client.batch_get_item(RequestItems=pending)
                found += [from_item(i) for i in result.get("Responses", {}).get(table, [])]
                pending = result.get("UnprocessedKeys") or {}
                if not pending:
                    break
                time.sleep(min(0.05 * 2**attempt, 2.0))
            else:
                raise StorageUnavailable("Storage is busy; try again")
    return found


def query_all(client: Any, request: dict[str, Any], limit: int | None = None) -> list[dict[str, Any]]:
    """Every item a Query returns (following pages), or the first ``limit``."""
    items: list[dict[str, Any]] = []
    request = dict(request)
    with translate_errors("Query"):
        while limit is None or len(items) < limit:
            page = client.query(**request)
            items += [from_item(i) for i in page.get("Items", [])]
            if "LastEvaluatedKey" not in page:
                break
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    return items if limit is None else items[:limit]


def cancelled_by_condition(exc: Exception, index: int) -> bool:
    """Whether a cancelled transaction failed because of item ``index``'s condition."""
    reasons = getattr(exc, "response", {}).get("CancellationReasons", [])
    return len(reasons) > index and reasons[index].get("Code") == "ConditionalCheckFailed"
