"""The workspaces' writer (authoring.md): request bodies and queries (strict: unknown fields refused, ``null`` is
absent), and the resources an owner reads back, with their envelopes."""

from __future__ import annotations

from typing import Annotated, ClassVar

from core.platform.fields import whole_number_rules
from core.platform.models import RequestModel
from core.platform.write_fields import (
    JsonObject,
    Name,
    ResourceId,
)


class WorkspaceUpdate(RequestModel):
    clearable: ClassVar[frozenset[str]] = frozenset({"conversation_retention_days"})

    name: Name | None = None
    listed: bool | None = None
    store_conversations: bool | None = None
    # 1 to 3650 days; ``null`` clears it (turns are then kept), so it is the one clearable setting.
    conversation_retention_days: Annotated[int, *whole_number_rules(1, 3650)] | None = None
    wrap_config: JsonObject | None = None
    default_brand_id: ResourceId | None = None
    default_workflow_id: ResourceId | None = None
