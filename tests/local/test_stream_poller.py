"""The runner's DynamoDB stream event sources (``local.triggers.streams``), on the runner's own moto server.

As Lambda's event source mapping: the function receives Lambda's DynamoDB event shape, only the records its
``FilterCriteria`` match (exact values, ``prefix``, ``exists``, nested keys), in batches of ``BatchSize``; a
``batchItemFailures`` answer resumes the shard at the first failed record (those before it are not sent again,
those after it are); a function error retries the batch (bisected when the template says so); a poller starts at
the stream's end, so changes made before it started (the restored state's) are not sent.

Nothing is timed: a test waits (bounded, only so that a hang fails) for the batches it expects, and shows that
something was NOT sent by the order of what was (a later marker record arrived first and alone).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest

from local.aws.emulator import create_resources, forget_stream_records, start_moto
from local.aws.state.restore import ACCOUNT
from local.triggers.streams import StreamPoller, UnsupportedFilter, filters_of, matches
from stack.template import Stack

HANG_SECONDS = 30  # only a test that hangs waits this long
_names = itertools.count()

Records = list[dict[str, Any]]


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    server, url = start_moto()
    yield url
    server.stop()


def client(endpoint: str, name: str) -> Any:
    return boto3.client(  # type: ignore[call-overload]
        name, endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="local", aws_secret_access_key="local"
    )


class Pool:
    """The function: notes every batch it is given and answers what ``answer`` says of it."""

    def __init__(self, answer: Callable[[Records], dict[str, Any] | None] = lambda _: None):
        self.batches: list[Records] = []
        self.answer = answer
        self._changed = threading.Condition()

    def invoke(self, function: str, event: dict[str, Any]) -> dict[str, Any] | None:
        with self._changed:
            self.batches.append(event["Records"])
            self._changed.notify_all()
        return self.answer(event["Records"])

    def wait_for(self, seen: Callable[[list[Records]], bool]) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: seen(self.batches), timeout=HANG_SECONDS), self.batches

    def sent(self) -> list[list[str]]:
        return [[key(r) for r in batch] for batch in self.batches]


def template(**event: Any) -> dict[str, Any]:
    """A table with a stream and one function reading it (the event's properties as given)."""
    return {
        "Resources": {
            "Table": {
                "Type": "AWS::DynamoDB::Table",
                "Properties": {
                    "AttributeDefinitions": [
                        {"AttributeName": "pk", "AttributeType": "S"},
                        {"AttributeName": "sk", "AttributeType": "S"},
                    ],
                    "KeySchema": [
                        {"AttributeName": "pk", "KeyType": "HASH"},
                        {"AttributeName": "sk", "KeyType": "RANGE"},
                    ],
                    "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
                },
            },
            "Events": {
                "Type": "AWS::Serverless::Function",
                "Properties": {
                    "Events": {
                        "Changes": {
                            "Type": "DynamoDB",
                            "Properties": {
                                "Stream": {"Fn::GetAtt": ["Table", "StreamArn"]},
                                "StartingPosition": "TRIM_HORIZON",
                            }
                            | event,
                        }
                    }
                },
            },
        }
    }


class Setup:
    """A table of its own (a stack named for the test) on the shared moto, and a poller on it once ``start``ed."""

    def __init__(self, endpoint: str, pool: Pool, **event: Any):
        self.stack = Stack(template(**event), stack_name=f"streams{next(_names)}")
        self.dynamodb = client(endpoint, "dynamodb")
        self.streams = client(endpoint, "dynamodbstreams")
        create_resources(self.stack, self.dynamodb, s3=None)
        self.table = self.stack.physical_name("Table")
        self.pool = pool
        self.poller: StreamPoller | None = None

    def start(self) -> Setup:
        self.poller = StreamPoller(self.stack, self.pool, self.streams, retry_seconds=0).start()  # type: ignore[arg-type]
        return self

    def put(self, sk: str, pk: str = "AGENT#a#TURNS", **attributes: str) -> None:
        item = {"pk": {"S": pk}, "sk": {"S": sk}} | {k: {"S": v} for k, v in attributes.items()}
        self.dynamodb.put_item(TableName=self.table, Item=item)

    def put_all(self, keys: Any, pk: str = "AGENT#a#TURNS") -> None:
        """One transaction: its records reach the stream together, so the poller reads them in one batch."""
        puts = [{"Put": {"TableName": self.table, "Item": {"pk": {"S": pk}, "sk": {"S": k}}}} for k in keys]
        self.dynamodb.transact_write_items(TransactItems=puts)

    def close(self) -> None:
        if self.poller:
            self.poller.close()


@pytest.fixture
def setups() -> Iterator[list[Setup]]:
    made: list[Setup] = []
    yield made
    for setup in made:
        setup.close()


def key(record: dict[str, Any]) -> str:
    sk: str = record["dynamodb"]["Keys"]["sk"]["S"]
    return sk


def pattern(value: dict[str, Any]) -> dict[str, Any]:
    return {"Filters": [{"Pattern": json.dumps(value)}]}


def test_the_function_receives_lambdas_dynamodb_event_shape(endpoint: str, setups: list[Setup]) -> None:
    pool = Pool()
    setups.append(setup := Setup(endpoint, pool).start())
    setup.put("TURN#1", text="first")
    setup.put("TURN#1", text="changed")
    setup.dynamodb.delete_item(TableName=setup.table, Key={"pk": {"S": "AGENT#a#TURNS"}, "sk": {"S": "TURN#1"}})
    pool.wait_for(lambda batches: sum(map(len, batches)) == 3)
    inserted, modified, removed = [r for batch in pool.batches for r in batch]
    assert [inserted["eventName"], modified["eventName"], removed["eventName"]] == ["INSERT", "MODIFY", "REMOVE"]
    assert inserted["eventSource"] == "aws:dynamodb" and inserted["awsRegion"] == "us-east-1"
    assert inserted["eventSourceARN"].startswith(f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/{setup.table}/stream/")
    change = inserted["dynamodb"]
    assert change["Keys"] == {"pk": {"S": "AGENT#a#TURNS"}, "sk": {"S": "TURN#1"}}
    assert change["NewImage"]["text"] == {"S": "first"} and "OldImage" not in change
    assert change["StreamViewType"] == "NEW_AND_OLD_IMAGES" and isinstance(change["ApproximateCreationDateTime"], int)
    assert modified["dynamodb"]["OldImage"]["text"] == {"S": "first"}
    assert modified["dynamodb"]["NewImage"]["text"] == {"S": "changed"}
    assert removed["dynamodb"]["OldImage"]["text"] == {"S": "changed"} and "NewImage" not in removed["dynamodb"]
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in (inserted, modified, removed)]
    assert numbers == sorted(set(numbers))
    assert len({inserted["eventID"], modified["eventID"], removed["eventID"]}) == 3
    json.dumps(pool.batches)  # what the runner hands a function travels as JSON


def test_only_the_records_the_filters_match_invoke_the_function(endpoint: str, setups: list[Setup]) -> None:
    criteria = {
        "Filters": [
            {
                "Pattern": json.dumps(
                    {"eventName": ["INSERT"], "dynamodb": {"Keys": {"pk": {"S": [{"prefix": "AGENT#"}]}}}}
                )
            },
            {
                "Pattern": json.dumps(
                    {"eventName": ["MODIFY"], "dynamodb": {"NewImage": {"status": {"S": ["indexed"]}}}}
                )
            },
        ]
    }
    pool = Pool()
    setups.append(setup := Setup(endpoint, pool, FilterCriteria=criteria).start())
    setup.put("ITEM#1", pk="WS#w", status="indexed")  # an INSERT, but not of an AGENT# key
    setup.put("TURN#1")  # matches the first pattern
    setup.put("ITEM#2", pk="WS#w", status="reading")
    setup.put("ITEM#2", pk="WS#w", status="indexed")  # a MODIFY to indexed: the second
    setup.put("ITEM#2", pk="WS#w", status="failed")  # a MODIFY, not to indexed
    setup.put("TURN#2")  # the last: once it came, everything before it was judged
    pool.wait_for(lambda batches: "TURN#2" in [k for batch in pool.sent() for k in batch])
    assert [k for batch in pool.sent() for k in batch] == ["TURN#1", "ITEM#2", "TURN#2"]


def test_filter_rules_as_lambda_evaluates_them() -> None:
    record = {"eventName": "INSERT", "dynamodb": {"NewImage": {"kind": {"S": "turn"}, "tags": {"SS": ["a", "b"]}}}}
    assert matches({"eventName": ["INSERT", "MODIFY"]}, record)
    assert not matches({"eventName": ["REMOVE"]}, record)
    assert matches({"dynamodb": {"NewImage": {"kind": {"S": [{"prefix": "tu"}]}}}}, record)
    assert not matches({"dynamodb": {"NewImage": {"kind": {"S": [{"prefix": "x"}]}}}}, record)
    assert matches({"dynamodb": {"NewImage": {"tags": {"SS": ["b"]}}}}, record)  # one element of a list
    assert matches({"dynamodb": {"OldImage": [{"exists": False}]}}, record)
    assert not matches({"dynamodb": {"OldImage": {"kind": {"S": ["turn"]}}}}, record)  # a key the record lacks
    assert matches({"eventName": [{"anything-but": ["REMOVE"]}]}, record)
    with pytest.raises(UnsupportedFilter):
        filters_of(pattern({"dynamodb": {"NewImage": {"n": {"N": [{"numeric": [">", 0]}]}}}}))


def test_batches_are_at_most_the_batch_size_and_start_at_the_streams_end(endpoint: str, setups: list[Setup]) -> None:
    pool = Pool()
    setup = Setup(endpoint, pool, BatchSize=2)
    setup.put_all(["OLD#1", "OLD#2"])  # written before the poller started: not sent (it starts at the end)
    setups.append(setup.start())
    setup.put_all([f"NEW#{n}" for n in range(5)])  # one transaction: all five in the stream at once
    pool.wait_for(lambda batches: sum(map(len, batches)) == 5)
    assert pool.sent() == [["NEW#0", "NEW#1"], ["NEW#2", "NEW#3"], ["NEW#4"]]


def test_a_restored_state_is_not_news(endpoint: str, setups: list[Setup]) -> None:
    """The runner forgets the records its restore wrote: the streams hold nothing of them, and sequence numbers go on
    growing (a consumer's position stays meaningful)."""
    setup = Setup(endpoint, Pool())
    setup.put("RESTORED#1")
    arn = setup.streams.list_streams(TableName=setup.table)["Streams"][0]["StreamArn"]
    shard = setup.streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]

    def stream() -> Records:
        start = setup.streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
        records: Records = setup.streams.get_records(ShardIterator=start["ShardIterator"])["Records"]
        return records

    (restored,) = stream()
    forget_stream_records(ACCOUNT, "us-east-1")
    assert stream() == []
    setup.put("LIVE#1")
    (live,) = stream()
    assert int(live["dynamodb"]["SequenceNumber"]) > int(restored["dynamodb"]["SequenceNumber"])


def test_batch_item_failures_resume_at_the_first_failed_record(endpoint: str, setups: list[Setup]) -> None:
    failed_once: set[str] = set()

    def answer(records: Records) -> dict[str, Any]:
        """Fails B and D the first time each is seen."""
        failing = [r for r in records if key(r) in ("B", "D") and r["eventID"] not in failed_once]
        failed_once.update(r["eventID"] for r in failing)
        return {"batchItemFailures": [{"itemIdentifier": r["dynamodb"]["SequenceNumber"]} for r in failing]}

    pool = Pool(answer)
    setups.append(setup := Setup(endpoint, pool, FunctionResponseTypes=["ReportBatchItemFailures"]).start())
    setup.put_all("ABCDE")
    pool.wait_for(lambda batches: len(batches) == 2)
    setup.put("F")  # once it came, no retry of the batches before it is pending
    pool.wait_for(lambda batches: len(batches) == 3)
    # Resumed at B, the first failed (A not sent again; C and E, done, sent again with the records after B).
    assert pool.sent() == [["A", "B", "C", "D", "E"], ["B", "C", "D", "E"], ["F"]]


def test_without_report_batch_item_failures_an_answer_is_not_a_failure(endpoint: str, setups: list[Setup]) -> None:
    pool = Pool(lambda records: {"batchItemFailures": [{"itemIdentifier": records[0]["dynamodb"]["SequenceNumber"]}]})
    setups.append(setup := Setup(endpoint, pool).start())
    setup.put_all("AB")
    setup.put("C")
    pool.wait_for(lambda batches: "C" in [k for batch in pool.sent() for k in batch])
    assert [k for batch in pool.sent() for k in batch] == ["A", "B", "C"]  # none sent twice


def test_a_function_error_retries_its_batch_bisected(endpoint: str, setups: list[Setup]) -> None:
    """A record that makes the function fail three times: the batch is split, the half without it done once, the half
    with it split again down to the record, which fails too: the shard resumes at it."""
    raised: list[str] = []

    def answer(records: Records) -> None:
        if "C" in [key(r) for r in records] and len(raised) < 3:
            raised.append("C")
            raise RuntimeError("poison")

    pool = Pool(answer)
    setups.append(setup := Setup(endpoint, pool, BisectBatchOnFunctionError=True).start())
    setup.put_all("ABCD")
    pool.wait_for(lambda batches: len(batches) == 5)
    setup.put("E")
    pool.wait_for(lambda batches: len(batches) == 6)
    assert pool.sent() == [["A", "B", "C", "D"], ["A", "B"], ["C", "D"], ["C"], ["C", "D"], ["E"]]


def test_a_function_error_without_bisecting_retries_the_whole_batch(endpoint: str, setups: list[Setup]) -> None:
    raised: list[str] = []

    def answer(records: Records) -> None:
        if not raised:
            raised.append("once")
            raise RuntimeError("down")

    pool = Pool(answer)
    setups.append(setup := Setup(endpoint, pool).start())
    setup.put_all("AB")
    pool.wait_for(lambda batches: len(batches) == 2)
    assert pool.sent() == [["A", "B"], ["A", "B"]]


class LosingReplies:
    """The runner's ``dynamodbstreams`` client whose next GetRecords that returns records loses its reply (moto read
    the records and forgot the iterator; the poller sees an error)."""

    def __init__(self, client: Any):
        self._client = client
        self.lose = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def get_records(self, **kwargs: Any) -> dict[str, Any]:
        answer: dict[str, Any] = self._client.get_records(**kwargs)
        if answer["Records"] and self.lose.is_set():
            self.lose.clear()
            raise ConnectionError("the reply was lost")
        return answer


def test_a_lost_read_is_read_again_after_the_last_record_handled(endpoint: str, setups: list[Setup]) -> None:
    pool = Pool()
    setup = Setup(endpoint, pool)
    setup.streams = LosingReplies(setup.streams)
    setups.append(setup.start())
    setup.put("A")
    pool.wait_for(lambda batches: len(batches) == 1)
    setup.streams.lose.set()
    setup.put("B")
    pool.wait_for(lambda batches: len(batches) == 2)
    assert pool.sent() == [["A"], ["B"]] and not setup.streams.lose.is_set()
