"""The workflows' provider: the writer's service on its store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.workflows.writer import WorkflowService


@per_container
def writer() -> WorkflowService:
    from core.audit import providers as audit
    from core.workflows.write_store import WorkflowStore
    from core.workflows.writer import WorkflowService
    from core.workspaces import providers as workspaces

    return WorkflowService(
        workspaces.access(), WorkflowStore(aws.dynamodb(), get_settings().main_table), audit.writes()
    )
