"""The runner answers DynamoDB item reads with json.dumps: the same documents moto's model-driven serialiser gives."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import boto3
from moto import mock_aws
from moto.dynamodb.responses import DynamoHandler

from local.aws.emulator import FAST_READS, make_dynamodb_reads_fast

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
