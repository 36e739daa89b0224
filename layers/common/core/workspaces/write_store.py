"""A workspace's settings (name, listing, conversations, wrap, its default brand and workflow): one transaction,
conditioned on the settings' version, with the brands whose default flag moves and a check that a named
workflow exists."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.platform import main_table as keys
from core.platform.errors import ValidationFailed
from core.platform.transactions import EXISTS, Also, Changed, Transaction
from core.platform.versions import update_fields
from core.workspaces.default_brand import swap_default_flags


class WorkspaceSettingsStore:
    def __init__(self, client: Any, table: str):
        self._db = client
        self._table = table

    def update(
        self,
        workspace_id: str,
        seen: int,
        fields: Mapping[str, Any],
        *,
        default_brand_was: str | None = None,
        workflow_id: str | None = None,
        also: Also,
    ) -> None:
        """SET ``fields`` (attribute names) if the settings are still at version ``seen`` (every write moving the
        default brand moves it too); ``default_brand_was``: the default read, when ``defaultBrandId`` changes (the
        brands' flags follow); ``workflow_id``: a workflow that must exist (the new default workflow)."""
        tx = Transaction(self._table)
        update_fields(tx, keys.workspace(workspace_id), fields, seen)
        if default_brand_was is not None:
            swap_default_flags(tx, workspace_id, default_brand_was, fields["defaultBrandId"], promote=True)
        if workflow_id is not None:
            tx.check(keys.workflow(workspace_id, workflow_id), EXISTS, name="workflow")
        tx.carry(also).commit_or_raise(self._db, {
            "changed": Changed("The workspace changed while this request was applied; read it again"),
            "brand": ValidationFailed("defaultBrandId: not a brand of this workspace"),
            "workflow": ValidationFailed("defaultWorkflowId: not a workflow of this workspace"),
        })  # fmt: skip
