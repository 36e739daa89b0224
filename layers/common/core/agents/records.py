"""Storage records: what repositories read from and write to DynamoDB.

Attribute names on disk are the same camelCase names the API uses, so a record
read from the table converts to its wire model without renaming. Key attributes
(``pk``, ``sk``, index keys) are the repositories' business and never appear here.
"""

from __future__ import annotations

from core.platform.records import Record


class AgentRecord(Record):
    id: str
    workspace_id: str
    slug: str
    name: str
    brand_id: str
    active_workflow_id: str
    # Published documents as JSON text, exactly as the editor stored them. They are
    # parsed defensively on read: a bad document must never fail the read plane.
    wrap_json: str | None = None
    site_json: str | None = None
    post_count: int = 0  # drafts included; moved by each post's create and delete transaction
    item_count: int = 0  # inactive included
    version: int = 0
    created_at: str
    updated_at: str
