"""The usage item a settlement adds to its transaction (``LedgerItems.count_usage``): pure, no I/O."""

from __future__ import annotations

from datetime import UTC, datetime

from core.credits.ledger_items import LedgerItems
from core.credits.records import HoldUsage
from core.platform.dynamo import from_item


def test_a_turn_counts_once_and_its_charge_for_its_key_and_its_agent_on_its_day() -> None:
    usage = HoldUsage(workspace_id="ws_1", key_id="key_1", agent_id="agt_1", day="2027-01-15")
    update = LedgerItems("ledger").count_usage(usage, 3)["Update"]  # type: ignore[index]
    assert from_item(update["Key"]) == {"pk": "USAGE#ws_1", "sk": "2027-01-15"}
    names, values = update["ExpressionAttributeNames"], from_item(update["ExpressionAttributeValues"])
    added = dict(
        part.split(" ") for part in update["UpdateExpression"].removeprefix("ADD ").split(" SET ")[0].split(", ")
    )
    assert {names[n]: values[v] for n, v in added.items()} == {
        "turns:key#key_1": 1, "credits:key#key_1": 3, "turns:agent#agt_1": 1, "credits:agent#agt_1": 3,
    }  # fmt: skip
    assert "ConditionExpression" not in update  # it applies exactly when the settlement's conditions do
    day = datetime(2027, 1, 15, tzinfo=UTC).timestamp()
    assert values[":ttl"] == day + 100 * 86_400 and names["#ttl"] == "ttl"


def test_a_hold_naming_only_a_key_counts_the_key_and_one_naming_neither_counts_nothing() -> None:
    items = LedgerItems("ledger")
    only_key = items.count_usage(HoldUsage(workspace_id="ws_1", key_id="key_1", day="2027-01-15"), 1)
    assert only_key is not None
    assert set(only_key["Update"]["ExpressionAttributeNames"].values()) == {
        "ttl",
        "turns:key#key_1",
        "credits:key#key_1",
    }
    assert items.count_usage(HoldUsage(workspace_id="ws_1", day="2027-01-15"), 1) is None
