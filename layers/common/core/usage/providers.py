"""The usage's provider: ``reader()``, for the two portal reads (the read plane counts in ``platform.rate_limit``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.usage.reader import UsageReader


@per_container
def reader() -> UsageReader:
    from core.keys import providers as keys
    from core.usage.reader import UsageReader
    from core.usage.store import UsageStore
    from core.workspaces import providers as workspaces

    def key_ids(workspace_id: str) -> list[str]:
        return [record.id for record in keys.store().list_for_workspace(workspace_id)]

    def check(user_id: str, workspace_id: str, agent_id: str | None = None) -> object:
        access = workspaces.access()
        if agent_id is not None:  # the agent must be this workspace's (404 otherwise)
            return access.agent_writer(user_id, workspace_id, agent_id)
        return access.writer(user_id, workspace_id)

    settings = get_settings()
    return UsageReader(UsageStore(aws.dynamodb(), settings.rate_limits_table, settings.ledger_table), key_ids, check)
