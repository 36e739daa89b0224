"""The runner's TransactWriteItems copies only the items a transaction touches, and keeps moto's all-or-nothing.

moto deep-copied every table a transaction named (the ledger grows with every chat turn, so turns
slowed down as it grew). With ``local.aws.item_rollback`` no table is copied: a failed transaction
leaves every item as it was (puts, updates, deletes, an update that would have created an item,
one named twice), with moto's cancellation reasons; a successful one applies every operation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.dynamodb import models
from moto.dynamodb.models.table import Table

from local.aws.item_rollback import make_transactions_roll_back_items

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import (
        AttributeDefinitionTypeDef,
        GlobalSecondaryIndexTypeDef,
        KeySchemaElementTypeDef,
    )

PAIR: list[KeySchemaElementTypeDef] = [
    {"AttributeName": "pk", "KeyType": "HASH"},
    {"AttributeName": "sk", "KeyType": "RANGE"},
]
SINGLE: list[KeySchemaElementTypeDef] = [{"AttributeName": "id", "KeyType": "HASH"}]
BY_KIND: GlobalSecondaryIndexTypeDef = {
    "IndexName": "byKind",
    "KeySchema": [{"AttributeName": "kind", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"},
}


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A moto DynamoDB with the patch (undone afterwards) in which copying a table fails the test."""
    monkeypatch.setattr(models, "copy", vars(models)["copy"])  # restored on teardown, whatever the patch sets
    monkeypatch.setattr(models.DynamoDBBackend, "transact_write_items", models.DynamoDBBackend.transact_write_items)
    make_transactions_roll_back_items()

    def no_table_copy(self: Table, memo: dict) -> Table:
        raise AssertionError(f"table {self.name} was copied")

    monkeypatch.setattr(Table, "__deepcopy__", no_table_copy, raising=False)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        attributes: list[AttributeDefinitionTypeDef] = [
            {"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "kind")
        ]
        client.create_table(
            TableName="pairs",
            AttributeDefinitions=attributes,
            KeySchema=PAIR,
            GlobalSecondaryIndexes=[BY_KIND],
            BillingMode="PAY_PER_REQUEST",
        )
        client.create_table(
            TableName="singles",
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            KeySchema=SINGLE,
            BillingMode="PAY_PER_REQUEST",
        )
        for n in range(3):
            client.put_item(TableName="pairs", Item=_pair(str(n)) | {"n": {"N": "0"}, "kind": {"S": "old"}})
        client.put_item(TableName="singles", Item={"id": {"S": "a"}, "n": {"N": "0"}})
        yield client


def _pair(sk: str) -> dict[str, Any]:
    return {"pk": {"S": "P"}, "sk": {"S": sk}}


def _everything(client: Any) -> dict[str, Any]:
    pairs = client.scan(TableName="pairs")["Items"]
    by_kind = client.query(
        TableName="pairs",
        IndexName="byKind",
        KeyConditionExpression="kind = :k",
        ExpressionAttributeValues={":k": {"S": "old"}},
    )["Items"]
    return {
        "pairs": sorted(pairs, key=lambda i: i["sk"]["S"]),
        "byKind": sorted(i["sk"]["S"] for i in by_kind),
        "singles": client.scan(TableName="singles")["Items"],
    }


def _operations(*, last_holds: bool) -> list[dict[str, Any]]:
    bump = {"UpdateExpression": "SET n = n + :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}
    return [
        {"Put": {"TableName": "pairs", "Item": _pair("new") | {"kind": {"S": "old"}}}},
        {"Update": {"TableName": "pairs", "Key": _pair("0"), **bump}},
        {"Delete": {"TableName": "pairs", "Key": _pair("1")}},
        {"Update": {"TableName": "pairs", "Key": _pair("created"), "UpdateExpression": "SET kind = :k",
                    "ExpressionAttributeValues": {":k": {"S": "old"}}}},
        {"Update": {"TableName": "singles", "Key": {"id": {"S": "a"}}, **bump}},
        {"ConditionCheck": {"TableName": "pairs", "Key": _pair("2"),
                            "ConditionExpression": "attribute_exists(pk)" if last_holds else "attribute_not_exists(pk)",
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
    ]  # fmt: skip


def test_a_failed_transaction_leaves_every_item_as_before(dynamodb: Any) -> None:
    before = _everything(dynamodb)
    with pytest.raises(ClientError) as failed:
        dynamodb.transact_write_items(TransactItems=_operations(last_holds=False))
    assert failed.value.response["Error"]["Code"] == "TransactionCanceledException"
    reasons = failed.value.response["CancellationReasons"]
    assert [r["Code"] for r in reasons] == ["None"] * 5 + ["ConditionalCheckFailed"]
    # cast: botocore-stubs type a cancellation reason's Item as a TypedDict without keys; it is the item's attributes
    old = cast(dict[str, Any], reasons[-1]["Item"])
    assert old["sk"] == {"S": "2"}  # moto's ALL_OLD item, as before the patch
    assert _everything(dynamodb) == before


def test_a_successful_transaction_applies_every_operation(dynamodb: Any) -> None:
    dynamodb.transact_write_items(TransactItems=_operations(last_holds=True))
    after = _everything(dynamodb)
    assert [i["sk"]["S"] for i in after["pairs"]] == ["0", "2", "created", "new"]
    assert after["pairs"][0]["n"] == {"N": "1"}
    assert after["byKind"] == ["0", "2", "created", "new"]
    assert after["singles"] == [{"id": {"S": "a"}, "n": {"N": "1"}}]


def test_an_item_named_twice_is_refused_and_nothing_written(dynamodb: Any) -> None:
    before = _everything(dynamodb)
    twice = [
        {"Put": {"TableName": "pairs", "Item": _pair("0") | {"n": {"N": "9"}}}},
        {"Delete": {"TableName": "singles", "Key": {"id": {"S": "a"}}}},
        {"Put": {"TableName": "pairs", "Item": _pair("0") | {"n": {"N": "8"}}}},
    ]
    with pytest.raises(ClientError) as refused:
        dynamodb.transact_write_items(TransactItems=twice)
    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert _everything(dynamodb) == before


def test_the_patch_is_installed_once(dynamodb: Any) -> None:
    patched = models.DynamoDBBackend.transact_write_items
    make_transactions_roll_back_items()
    assert models.DynamoDBBackend.transact_write_items is patched
    assert getattr(patched, "item_level", False)
