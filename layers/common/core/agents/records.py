"""The agents' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

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
