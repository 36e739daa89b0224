"""Replaying the kept state into a fresh moto at start: the snapshot's items, then the journal, objects and queues.

Everything goes through moto's own WSGI application (``werkzeug.test.Client``), as requests, so the
item-level transaction rollback, the DynamoDB lock and moto's validation apply as they did live.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from local.aws.state.store import Saved, StateStore

ACCOUNT = "123456789012"  # moto's default account: every request here is signed with the dummy credentials
logger = logging.getLogger("local.state")


def fake_auth(service: str, region: str) -> str:
    """A SigV4 header moto routes by (it checks no signature): the service and region are in its scope."""
    scope = f"local/20250101/{region}/{service}/aws4_request"
    return f"AWS4-HMAC-SHA256 Credential={scope}, SignedHeaders=host, Signature=0"


def restore(app: Callable, saved: Saved, store: StateStore, region: str) -> None:
    """Apply ``saved`` to a fresh moto (tables, bucket and queues created from the template)."""
    from werkzeug.test import Client

    client = Client(app)
    rpc = {"Content-Type": "application/x-amz-json-1.0"}
    for table, items in saved.items.items():
        for start in range(0, len(items), 25):
            writes = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
            body = json.dumps({"RequestItems": {table: writes}})
            _expect(client.post("/", data=body, headers=rpc | _dynamodb(region, "BatchWriteItem")))
    for target, body in saved.requests:
        _expect(client.post("/", data=body, headers=rpc | _dynamodb(region, target.partition(".")[2])), ok_4xx=True)
    s3 = {"Authorization": fake_auth("s3", region)}
    for (bucket, key), versions in saved.objects.items():
        path = f"/{bucket}/{quote(key, safe='/')}"
        for version in versions:
            if version.get("deleteMarker"):
                _expect(client.delete(path, headers=s3))
            else:
                _expect(client.put(path, data=store.blob(version["blob"]), headers=s3 | version["headers"]))
    sqs = rpc | {"Authorization": fake_auth("sqs", region)}
    for queue, bodies in saved.queues.items():
        url = f"http://localhost/{ACCOUNT}/{queue}"
        for message in bodies:
            body = json.dumps({"QueueUrl": url, "MessageBody": message})
            _expect(client.post("/", data=body, headers=sqs | {"X-Amz-Target": "AmazonSQS.SendMessage"}))


def _dynamodb(region: str, action: str) -> dict[str, str]:
    return {"X-Amz-Target": f"DynamoDB_20120810.{action}", "Authorization": fake_auth("dynamodb", region)}


def _expect(response: Any, *, ok_4xx: bool = False) -> None:
    """A restore step must succeed; a journalled request that fails now (it succeeded once) is reported."""
    if response.status_code >= 300 and not (ok_4xx and response.status_code < 500):
        raise RuntimeError(f"restoring the local state failed: {response.status_code} {response.get_data()[:300]!r}")
    if response.status_code >= 300:
        logger.warning("a journalled write no longer applies: %s", response.get_data()[:300])
