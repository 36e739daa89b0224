"""The runner's moto writes DynamoDB stream records as DynamoDB does (``local.aws.emulator``, ``item_rollback``).

A stream is the events' home (docs/architecture.md): a record there is a change that committed. So a cancelled
TransactWriteItems leaves no record (the item-level rollback drops those it appended, as moto's own whole-table copy
did), and a stream read never sees records of a transaction still being applied (it waits for the DynamoDB lock);
an UpdateItem that creates an item writes one INSERT of the whole item (moto wrote the bare key first, a second
INSERT); a write that changes nothing writes none; a transaction's Update writes its MODIFY.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto.dynamodb.models.table import StreamShard

from local.aws.emulator import start_moto

HANG_SECONDS = 30  # only a test that hangs waits this long
_names = itertools.count()


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    server, url = start_moto()
    yield url
    server.stop()


class Table:
    """A table of its own with a NEW_AND_OLD_IMAGES stream, on the runner's moto, and its stream read from the start."""

    def __init__(self, endpoint: str):
        def client(name: str) -> Any:
            return boto3.client(  # type: ignore[call-overload]
                name, endpoint_url=endpoint, region_name="us-east-1",
                aws_access_key_id="local", aws_secret_access_key="local",
            )  # fmt: skip

        self.dynamodb, self.streams = client("dynamodb"), client("dynamodbstreams")
        self.name = f"streamed-{next(_names)}"
        self.dynamodb.create_table(
            TableName=self.name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        )
        self.arn = self.streams.list_streams(TableName=self.name)["Streams"][0]["StreamArn"]
        self.shard = self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"][0]["ShardId"]

    def iterator(self) -> str:
        found = self.streams.get_shard_iterator(
            StreamArn=self.arn, ShardId=self.shard, ShardIteratorType="TRIM_HORIZON"
        )
        iterator: str = found["ShardIterator"]
        return iterator

    def records(self, iterator: str | None = None) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = self.streams.get_records(ShardIterator=iterator or self.iterator())["Records"]
        return records

    def changes(self) -> list[tuple[str, str, dict[str, Any] | None]]:
        """(event name, key, new image) of every record."""
        return [
            (r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"], r["dynamodb"].get("NewImage"))
            for r in self.records()
        ]  # fmt: skip

    def put(self, pk: str, **attributes: str) -> dict[str, Any]:
        return {
            "Put": {"TableName": self.name, "Item": {"pk": {"S": pk}} | {k: {"S": v} for k, v in attributes.items()}}
        }

    def failing_update(self, pk: str) -> dict[str, Any]:
        """An Update whose condition fails (the item exists): the transaction is cancelled."""
        return {
            "Update": {
                "TableName": self.name, "Key": {"pk": {"S": pk}}, "UpdateExpression": "SET n = :n",
                "ConditionExpression": "attribute_not_exists(pk)", "ExpressionAttributeValues": {":n": {"S": "2"}},
            }
        }  # fmt: skip


@pytest.fixture
def table(endpoint: str) -> Table:
    return Table(endpoint)


def test_a_cancelled_transaction_leaves_no_stream_record(table: Table) -> None:
    table.dynamodb.transact_write_items(TransactItems=[table.put("kept")])
    with pytest.raises(ClientError, match="TransactionCanceledException"):
        table.dynamodb.transact_write_items(
            TransactItems=[table.put("never"), table.put("other", n="1"), table.failing_update("kept")]
        )
    assert table.changes() == [("INSERT", "kept", {"pk": {"S": "kept"}})]
    table.dynamodb.transact_write_items(TransactItems=[table.put("after")])  # numbers go on from the last kept
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in table.records()]
    assert len(numbers) == 2 and numbers[1] == numbers[0] + 1


def test_a_transactions_update_writes_its_record(table: Table) -> None:
    table.dynamodb.put_item(TableName=table.name, Item={"pk": {"S": "a"}, "n": {"S": "1"}})
    table.dynamodb.transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": table.name, "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET n = :n",
                    "ExpressionAttributeValues": {":n": {"S": "2"}},
                }
            }
        ]
    )  # fmt: skip
    (_, modified) = table.records()
    assert modified["eventName"] == "MODIFY"
    assert modified["dynamodb"]["OldImage"]["n"] == {"S": "1"} and modified["dynamodb"]["NewImage"]["n"] == {"S": "2"}


def test_an_update_that_creates_an_item_writes_one_insert_of_the_whole_item(table: Table) -> None:
    update = {"UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": {"S": "1"}}}
    table.dynamodb.update_item(TableName=table.name, Key={"pk": {"S": "a"}}, **update)
    table.dynamodb.transact_write_items(
        TransactItems=[{"Update": {"TableName": table.name, "Key": {"pk": {"S": "b"}}} | update}]
    )
    table.dynamodb.put_item(TableName=table.name, Item={"pk": {"S": "c"}})
    assert table.changes() == [
        ("INSERT", "a", {"pk": {"S": "a"}, "n": {"S": "1"}}),
        ("INSERT", "b", {"pk": {"S": "b"}, "n": {"S": "1"}}),
        ("INSERT", "c", {"pk": {"S": "c"}}),
    ]
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in table.records()]
    assert numbers == list(range(numbers[0], numbers[0] + 3))


def test_a_write_that_changes_nothing_writes_no_record(table: Table) -> None:
    item = {"pk": {"S": "a"}, "n": {"S": "1"}}
    table.dynamodb.put_item(TableName=table.name, Item=item)
    table.dynamodb.put_item(TableName=table.name, Item=item)
    table.dynamodb.update_item(
        TableName=table.name, Key={"pk": {"S": "a"}}, UpdateExpression="SET n = :n",
        ExpressionAttributeValues={":n": {"S": "1"}},
    )  # fmt: skip
    assert [name for name, _, _ in table.changes()] == ["INSERT"]


def test_a_stream_read_waits_for_a_transaction_being_applied(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """The transaction is held after it appended its first record and before its failing operation: a read made
    meanwhile must not return that record (it waits, then finds the transaction cancelled and its record gone)."""
    appended, release = threading.Event(), threading.Event()
    add = StreamShard.add

    def held_add(self: StreamShard, old: Any, new: Any) -> None:
        add(self, old, new)
        if new is not None and new.hash_key.value == "held":
            appended.set()
            release.wait(HANG_SECONDS)

    monkeypatch.setattr(StreamShard, "add", held_add)
    table.dynamodb.put_item(TableName=table.name, Item={"pk": {"S": "kept"}})
    iterator = table.iterator()
    failed: list[Exception] = []

    def cancelled_transaction() -> None:
        try:
            table.dynamodb.transact_write_items(TransactItems=[table.put("held"), table.failing_update("kept")])
        except ClientError as error:
            failed.append(error)

    writer = threading.Thread(target=cancelled_transaction)
    writer.start()
    assert appended.wait(HANG_SECONDS)
    read: list[list[dict[str, Any]]] = []
    reader = threading.Thread(target=lambda: read.append(table.records(iterator)))
    reader.start()
    reader.join(1)  # without the lock the read would have come back by now, with the held record
    release.set()
    writer.join(HANG_SECONDS)
    reader.join(HANG_SECONDS)
    assert failed and "TransactionCanceledException" in str(failed[0])
    assert [[r["dynamodb"]["Keys"]["pk"]["S"] for r in records] for records in read] == [["kept"]]


def test_a_stream_read_forgets_its_iterator(table: Table) -> None:
    """The runner's poller reads several times a second for as long as the runner runs: moto kept every iterator."""
    from moto.dynamodbstreams.models import dynamodbstreams_backends

    from local.aws.state.restore import ACCOUNT

    kept = dynamodbstreams_backends[ACCOUNT]["us-east-1"].shard_iterators
    iterator = table.iterator()
    for _ in range(5):
        iterator = table.streams.get_records(ShardIterator=iterator)["NextShardIterator"]
    assert [arn for arn in kept if arn.startswith(table.arn)] == [iterator]  # the last one, not yet read
