"""The workflows' storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.platform.transactions import Also
    from core.workflows.records import WorkflowRecord


class StoredWorkflows(Protocol):
    def get(self, workspace_id: str, workflow_id: str) -> WorkflowRecord | None: ...
    def list(self, workspace_id: str) -> list[WorkflowRecord]: ...
    def page(self, workspace_id: str, limit: int, start: str | None) -> builtins.list[WorkflowRecord]: ...
    def create(self, workflow: WorkflowRecord, *, also: Also) -> None: ...
    def update(self, old: WorkflowRecord, new: WorkflowRecord, *, also: Also) -> WorkflowRecord: ...
    def delete(self, workflow: WorkflowRecord, *, also: Also) -> None: ...
