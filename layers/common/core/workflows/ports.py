"""The writer's storage interfaces: one ``Protocol`` per store in ``core.repositories.authoring``, holding what the
authoring services call (as ``core.platform.ports`` does for the rest; records are imported for the type checker
only). The concrete stores satisfy them structurally; mypy checks that where ``core.deps.authoring`` wires them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.platform.transactions import Also
    from core.workflows.records import WorkflowRecord


class WorkflowStore(Protocol):
    def get(self, workspace_id: str, workflow_id: str) -> WorkflowRecord | None: ...
    def list(self, workspace_id: str) -> list[WorkflowRecord]: ...
    def create(self, workflow: WorkflowRecord, *, also: Also) -> None: ...
    def update(self, old: WorkflowRecord, new: WorkflowRecord, *, also: Also) -> WorkflowRecord: ...
    def delete(self, workflow: WorkflowRecord, *, also: Also) -> None: ...
