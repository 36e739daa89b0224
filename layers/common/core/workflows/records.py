"""Storage records: what repositories read from and write to DynamoDB.

Attribute names on disk are the same camelCase names the API uses, so a record
read from the table converts to its wire model without renaming. Key attributes
(``pk``, ``sk``, index keys) are the repositories' business and never appear here.
"""

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
