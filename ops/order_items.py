"""``python -m ops order-items [--agent ID] [--after CURSOR]``: give every item of agents made before issue 43 its
place in the items listing.

An agent's items are listed by folder, order and id; since issue 43 each item has a copy of its key at that place
(``AGENT#<a>#ITEMORDER``), written by every write of the item, and an agent made since is marked ordered at its
creation. An agent made before has no mark: its listing reads every item, as before, until this command places its
items and marks it (``ItemStore.place_all``). A Scan for the agents (``WS#<ws>`` / ``AGENT#<a>``), page by page;
each agent done prints a line with ``after``, the cursor to resume from (``--after``) if the command is stopped.
Idempotent: placing an item twice puts the same copy, and a marked agent is left as it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from core.items.write_store import ItemStore
from core.platform.dynamo import from_item, to_item, translate_errors


@dataclass
class Report:
    agents: int = 0
    placed: int = 0


def agents(dynamodb: Any, table: str, after: str | None) -> Iterator[tuple[str, str]]:
    """Each agent's (workspace partition, agent id), in Scan order, after the agent item ``after`` (``pk|sk``)."""
    request: dict[str, Any] = {
        "TableName": table,
        "FilterExpression": "begins_with(pk, :ws) AND begins_with(sk, :agent)",
        "ProjectionExpression": "pk, sk",
        "ExpressionAttributeValues": to_item({":ws": "WS#", ":agent": "AGENT#"}),
    }
    if after:
        pk, _, sk = after.partition("|")
        request["ExclusiveStartKey"] = to_item({"pk": pk, "sk": sk})
    while True:
        with translate_errors("Scan"):
            page = dynamodb.scan(**request)
        for item in page.get("Items", []):
            row = from_item(item)
            if row["sk"].count("#") == 1:  # ``AGENT#<id>``, not a key's ``AGENT#<id>#...`` of another record
                yield str(row["pk"]), str(row["sk"]).removeprefix("AGENT#")
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def run(
    store: ItemStore, dynamodb: Any, table: str, *, agent: str | None = None, after: str | None = None,
    say: Callable[[str], None] = print,
) -> Report:  # fmt: skip
    report = Report()
    found: Iterable[tuple[str | None, str]] = [(None, agent)] if agent else agents(dynamodb, table, after)
    for pk, agent_id in found:
        placed = store.place_all(agent_id)
        report.agents += 1
        report.placed += placed
        line: dict[str, Any] = {"agentId": agent_id, "placed": placed}
        say(json.dumps(line | ({"after": f"{pk}|AGENT#{agent_id}"} if pk else {})))
    say(json.dumps({"agents": report.agents, "placed": report.placed, "done": True}))
    return report
