"""The runner answers DynamoDB item reads with json.dumps: the same documents moto's model-driven serialiser gives."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import boto3
from moto import mock_aws
from moto.dynamodb.responses import DynamoHandler

from local.aws.emulator import FAST_READS, make_dynamodb_reads_fast, make_queries_read_their_partition

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import (
        AttributeDefinitionTypeDef,
        AttributeValueTypeDef,
        KeySchemaElementTypeDef,
    )

ITEM: dict[str, AttributeValueTypeDef] = {
    "b": {"B": b"\x00\x01bin"},
    "bs": {"BS": [b"a", b"b"]},
    "ns": {"NS": ["1", "2.5"]},
    "ss": {"SS": ["x"]},
    "n": {"N": "3"},
    "t": {"BOOL": True},
    "z": {"NULL": True},
    "l": {"L": [{"S": "a"}, {"M": {"q": {"B": b"zz"}}}]},
    "m": {"M": {"a": {"S": "b"}, "c": {"N": "1"}}},
}


def _reads(client: Any) -> None:
    key = {"pk": {"S": "P"}, "sk": {"S": "1"}}
    client.query(
        TableName="t", KeyConditionExpression="pk = :pk", ExpressionAttributeValues={":pk": {"S": "P"}}, Limit=2
    )
    client.scan(TableName="t")
    client.get_item(TableName="t", Key=key)
    client.get_item(TableName="t", Key={"pk": {"S": "P"}, "sk": {"S": "none"}})
    client.batch_get_item(RequestItems={"t": {"Keys": [key]}})


def test_fast_reads_give_moto_s_own_documents(monkeypatch: Any) -> None:
    make_dynamodb_reads_fast()
    fast = DynamoHandler.serialized
    assert getattr(fast, "fast", False) and fast.__closure__ is not None
    kept = dict(zip(fast.__code__.co_freevars, (cell.cell_contents for cell in fast.__closure__), strict=True))
    slow = kept["original"]  # moto's own serialiser, kept by the patch
    pairs: list[tuple[str, Any, Any]] = []

    def both(self: DynamoHandler, result: Any) -> Any:
        answer = fast(self, result)
        pairs.append((self._get_action(), answer, slow(self, result)))
        return answer

    monkeypatch.setattr(DynamoHandler, "serialized", both)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        attributes: list[AttributeDefinitionTypeDef] = [
            {"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk")
        ]
        schema: list[KeySchemaElementTypeDef] = [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ]
        client.create_table(
            TableName="t", AttributeDefinitions=attributes, KeySchema=schema, BillingMode="PAY_PER_REQUEST"
        )
        for n in range(5):
            client.put_item(TableName="t", Item={"pk": {"S": "P"}, "sk": {"S": str(n)}, **ITEM})
        _reads(client)
    reads = [(action, a, b) for action, a, b in pairs if action in FAST_READS]
    assert {action for action, _, _ in reads} == set(FAST_READS)
    for action, (status, headers, body), (slow_status, slow_headers, slow_body) in reads:
        assert (status, headers["Content-Type"]) == (slow_status, slow_headers["Content-Type"]), action
        assert json.loads(body) == json.loads(slow_body), action


def test_a_query_reading_its_partition_answers_as_moto_s_own() -> None:
    """Table and index queries, both directions, key conditions, filters and pages: the patched query, which reads
    only its partition (``make_queries_read_their_partition``), answers what moto's own walk of the table does."""
    from moto.dynamodb.models.table import Table

    make_queries_read_their_partition()
    patched = Table.query
    own = patched.original  # type: ignore[attr-defined]
    answers: list[tuple[Any, Any]] = []

    def both(self: Table, *args: Any, **kwargs: Any) -> Any:
        answer = patched(self, *args, **kwargs)
        answers.append((answer, own(self, *args, **kwargs)))
        return answer

    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(
            TableName="t", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "g")],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            GlobalSecondaryIndexes=[{
                "IndexName": "byG", "Projection": {"ProjectionType": "ALL"},
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            }],
        )  # fmt: skip
        for p in range(6):
            for n in range(7):
                item = {"pk": {"S": f"P{p}"}, "sk": {"S": f"{n:02}"}, "v": {"N": str(n % 3)}}
                client.put_item(TableName="t", Item=item | ({"g": {"S": f"G{n % 2}"}} if p % 2 else {}))
        try:
            Table.query = both  # type: ignore[method-assign]
            for forward in (True, False):
                for limit in (2, 50):
                    asked: list[dict[str, Any]] = [
                        {"KeyConditionExpression": "pk = :h", "ExpressionAttributeValues": {":h": {"S": "P3"}}},
                        {"KeyConditionExpression": "pk = :h", "ExpressionAttributeValues": {":h": {"S": "none"}}},
                        {"KeyConditionExpression": "pk = :h AND sk > :s",
                         "ExpressionAttributeValues": {":h": {"S": "P1"}, ":s": {"S": "02"}}},
                        {"KeyConditionExpression": "pk = :h", "FilterExpression": "v = :v",
                         "ExpressionAttributeValues": {":h": {"S": "P5"}, ":v": {"N": "1"}}},
                        {"IndexName": "byG", "KeyConditionExpression": "g = :g",
                         "ExpressionAttributeValues": {":g": {"S": "G1"}}},
                        {"IndexName": "byG", "KeyConditionExpression": "g = :g AND sk <= :s",
                         "ExpressionAttributeValues": {":g": {"S": "G0"}, ":s": {"S": "04"}}},
                    ]  # fmt: skip
                    for query in asked:
                        page: dict[str, Any] = {"Limit": limit, "ScanIndexForward": forward}
                        while True:
                            answer = client.query(TableName="t", **query, **page)
                            if "LastEvaluatedKey" not in answer:
                                break
                            page["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
        finally:
            Table.query = patched  # type: ignore[method-assign]
    assert len(answers) > 24
    for (items, scanned, last), (own_items, own_scanned, own_last) in answers:
        assert [i.to_json() for i in items] == [i.to_json() for i in own_items]
        assert (scanned, last) == (own_scanned, own_last)
