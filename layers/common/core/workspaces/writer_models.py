"""The workspaces' writer (authoring.md): request bodies and queries (strict: unknown fields refused, ``null`` is
absent), and the resources an owner reads back, with their envelopes."""

from __future__ import annotations

from core.platform.models import RequestModel
from core.platform.write_fields import (
    JsonObject,
    Name,
    ResourceId,
)


class WorkspaceUpdate(RequestModel):
    name: Name | None = None
    listed: bool | None = None
    store_conversations: bool | None = None
    wrap_config: JsonObject | None = None
    default_brand_id: ResourceId | None = None
    default_workflow_id: ResourceId | None = None
