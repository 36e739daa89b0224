"""The workflows' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from core.platform.records import Record


class WorkflowRecord(Record):
    id: str
    workspace_id: str
    name: str
    # The workflow's starter suggestions as published JSON; its shape is the workflow's own.
    suggestions_json: str | None = None
    agent_count: int = 0  # agents whose active workflow it is: such a workflow is not deleted
    version: int = 0
    created_at: str
    updated_at: str
