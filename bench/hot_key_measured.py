"""The measured half of bench/hot_key.py: the real limiter on moto, one item against shards, scaled down.

DynamoDB's partition ceilings cannot be reproduced in moto, but the limiter's calls and its exactness
can: a flood over the limit from several containers (each its own limiter) counts every GetItem and
UpdateItem the limiter makes.
"""

from __future__ import annotations

import collections
import os
from typing import Any

from core.platform import rate_shards
from core.platform.rate_shards import shard_count


class CountingClient:
    """A boto3 DynamoDB client that counts the calls the limiter makes."""

    def __init__(self, client: Any) -> None:
        self._client, self.calls = client, collections.Counter[str]()
        self.exceptions = client.exceptions

    def get_item(self, **kwargs: Any) -> Any:
        self.calls["GetItem"] += 1
        return self._client.get_item(**kwargs)

    def update_item(self, **kwargs: Any) -> Any:
        self.calls["UpdateItem"] += 1
        return self._client.update_item(**kwargs)


def measured(containers: int, limit: int = 600, shards: int = 20, flood: float = 1.5) -> list[list[object]]:
    """The real limiter on moto, scaled down (shards small enough that ``limit`` a minute is ``shards`` of them, the
    shape of 600,000 a minute at 500 a second): ``flood`` x the limit from ``containers`` containers in turn."""
    os.environ.update(
        {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1"}
    )
    from moto import mock_aws

    found: list[list[object]] = []
    per_second = rate_shards.SHARD_WRITES_PER_SECOND
    with mock_aws():
        import boto3

        from core.platform.errors import RateLimited
        from core.platform.rate_limit import SlidingWindowLimiter
        from core.platform.rate_limit_store import RateLimitStore

        db = boto3.client("dynamodb")
        for per_shard in (limit, limit / 60 / shards):  # one item (the baseline), then the shards
            rate_shards.SHARD_WRITES_PER_SECOND = per_shard  # this interpreter is the bench's own
            table_name = f"bench-rate-limits-{len(found)}"
            db.create_table(
                TableName=table_name, BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            )  # fmt: skip
            client = CountingClient(db)
            limiters = [
                SlidingWindowLimiter(RateLimitStore(client, table_name), clock=lambda: 1_800_000_030.5)
                for _ in range(containers)
            ]
            admitted = refused = 0
            reads_counted = reads_refused = 0
            for n in range(int(limit * flood)):
                before = client.calls["GetItem"]
                try:
                    limiters[n % containers].take("key#hot", limit)
                    admitted += 1
                    reads_counted += client.calls["GetItem"] - before
                except RateLimited:
                    refused += 1
                    reads_refused += client.calls["GetItem"] - before
            found.append([
                shard_count(limit, 60), admitted, refused, f"{reads_counted / admitted:.2f}",
                f"{client.calls['UpdateItem'] / admitted:.2f}", f"{reads_refused / max(1, refused):.2f}",
            ])  # fmt: skip
    rate_shards.SHARD_WRITES_PER_SECOND = per_second
    return found
