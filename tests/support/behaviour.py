"""An agent's behaviour written straight onto its stored item, as the agents writer stores it (the whole record), for
tests of the turn that need an agent to answer a certain way without going through the management API."""

from __future__ import annotations

import json
from typing import Any

from core.agents.records import DEFAULT_BEHAVIOUR, BehaviourRecord
from core.platform import main_table as keys
from core.platform.dynamo import to_av
from core.platform.settings import get_settings

# The local runner's two models (local/runner.py), for in-process tests of per-model billing.
TWO_MODELS = json.dumps([
    {"id": "offline", "name": "Offline", "provider": "offline", "creditsPerTurn": 1, "default": True},
    {"id": "offline-plus", "name": "Offline Plus", "provider": "offline", "creditsPerTurn": 3},
])  # fmt: skip


def set_behaviour(dynamodb: Any, workspace_id: str, agent_id: str, **fields: Any) -> BehaviourRecord:
    """The agent's behaviour: the defaults with ``fields`` (snake_case names) changed, stored whole."""
    behaviour = DEFAULT_BEHAVIOUR.model_copy(update=fields)
    dynamodb.update_item(
        TableName=get_settings().main_table,
        Key={name: to_av(value) for name, value in keys.agent(workspace_id, agent_id).items()},
        UpdateExpression="SET behaviour = :b",
        ConditionExpression="attribute_exists(pk)",
        ExpressionAttributeValues={":b": to_av(behaviour.model_dump(mode="json", by_alias=True))},
    )
    return behaviour
