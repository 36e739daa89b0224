"""The injector itself: the exceptions it makes are the ones a real botocore client raises, at the planned call."""

from __future__ import annotations

from pathlib import Path

import pytest
from botocore.exceptions import ClientError, ConnectTimeoutError, ReadTimeoutError

from core.platform import aws
from core.platform.settings import get_settings
from tests.support.fault_harness import World, arranged
from tests.support.fault_injection import CONDITIONAL, S3_SLOWDOWN, THROUGHPUT, Call, Plan, _timeouts

KEY = {"pk": {"S": "INJECTOR#test"}, "sk": {"S": "INJECTOR"}}


def counter_update(condition: bool = True) -> dict:
    request = {"TableName": get_settings().main_table, "Key": KEY,
               "UpdateExpression": "ADD hits :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}  # fmt: skip
    return request | ({"ConditionExpression": "attribute_not_exists(nope)"} if condition else {})


def test_counts_only_while_armed_and_fails_only_the_planned_call(world: World) -> None:
    db = aws.dynamodb()
    db.update_item(**counter_update())
    with world.injector.armed(Plan(1, THROUGHPUT)) as calls:
        db.update_item(**counter_update())
        with pytest.raises(ClientError) as raised:
            db.update_item(**counter_update())
        db.update_item(**counter_update(condition=False))
    assert calls == [Call("dynamodb", "UpdateItem", True)] * 2 + [Call("dynamodb", "UpdateItem", False)]
    error = raised.value.response
    assert (error["Error"]["Code"], error["ResponseMetadata"]["HTTPStatusCode"]) == (
        "ProvisionedThroughputExceededException", 400)  # fmt: skip


def test_a_lost_race_is_the_modeled_exception(world: World) -> None:
    db = aws.dynamodb()
    with world.injector.armed(Plan(0, CONDITIONAL)), pytest.raises(db.exceptions.ConditionalCheckFailedException):
        db.update_item(**counter_update())
    put = {"Put": {"TableName": get_settings().main_table, "Item": {"pk": {"S": "INJECTOR#t"}, "sk": {"S": "T"}}}}
    checked = {"Update": counter_update()}
    canceled = db.exceptions.TransactionCanceledException
    with world.injector.armed(Plan(0, CONDITIONAL)), pytest.raises(canceled) as raised:
        db.transact_write_items(TransactItems=[put, checked])
    assert raised.value.response["CancellationReasons"] == [{"Code": "None"}, {"Code": "ConditionalCheckFailed"}]


def test_timeouts_and_s3_errors(world: World) -> None:
    connect, read = _timeouts("dynamodb")
    db = aws.dynamodb()
    db.update_item(**counter_update(condition=False))
    before = int(db.get_item(TableName=get_settings().main_table, Key=KEY)["Item"]["hits"]["N"])
    with world.injector.armed(Plan(0, connect)), pytest.raises(ConnectTimeoutError):
        db.update_item(**counter_update(condition=False))
    with world.injector.armed(Plan(0, read)), pytest.raises(ReadTimeoutError):
        db.update_item(**counter_update(condition=False))
    hits = int(db.get_item(TableName=get_settings().main_table, Key=KEY)["Item"]["hits"]["N"])
    assert hits == before + 1  # the read timeout came after DynamoDB applied the write; the connect one before
    with world.injector.armed(Plan(0, S3_SLOWDOWN)), pytest.raises(ClientError) as raised:
        aws.s3().head_bucket(Bucket=get_settings().content_bucket)
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 503


# --- the harness's arrangements (tests/support/fault_harness.py, ``arranged``)


class Counting:
    """A scenario whose arrangement is one counter item and its arranged value a list: how often it was made."""

    name = "counting"
    made = 0

    def arrange(self, world: World) -> list[int]:
        Counting.made += 1
        aws.dynamodb().update_item(**counter_update(condition=False))
        return [Counting.made]


def hits(world: World) -> int | None:
    found = world.aws.dynamodb.get_item(TableName=get_settings().main_table, Key=KEY).get("Item")
    return int(found["hits"]["N"]) if found else None


def test_an_arrangement_is_made_once_and_each_case_gets_it_as_it_was_made(
    world: World, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A case's writes and changes to its value reach neither the kept arrangement nor the next case; a test of the
    module starts from the template's resources alone."""
    scenario, before = Counting(), Counting.made
    case = world
    for n in range(3):
        if n:
            case = World(world.aws, monkeypatch, tmp_path / str(n), world.arrangements)
            assert hits(case) is None  # a new test starts from the template's resources
        value = arranged(case, scenario)
        assert (value, hits(case)) == ([before + 1], 1), n
        aws.dynamodb().update_item(**counter_update(condition=False))  # the case writes
        value.append(99)  # and changes what it was given
    assert Counting.made - before == 1
