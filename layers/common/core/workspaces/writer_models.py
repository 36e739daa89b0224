"""Request bodies and queries of the authoring routes: strict, unknown fields refused, ``null`` = absent.

A PATCH body names only what changes: ``model_fields_set`` is what the caller sent. Limits keep every post's
transaction (its row, one copy per filter, the counters) within DynamoDB's 100 items and 4 MB.
"""

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
