"""The agents' storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

# Only for the type checker: importing the records here would load them into every function that imports a
# service (tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    from core.agents.records import AgentRecord
    from core.brands.records import BrandRecord
    from core.items.records import ItemRecord
    from core.platform.settings import PlanLimits
    from core.platform.transactions import Also
    from core.posts.records import PostRecord
    from core.workflows.records import WorkflowRecord
    from core.workspaces.records import PurgeRecord, WorkspaceRecord


class Agents(Protocol):
    """Published agents and what they show: brands, workflows, feed posts, items (``PublishedAgentStore``)."""

    def get_agent(self, workspace_id: str, agent_id: str) -> AgentRecord | None: ...
    def get_agent_with_workspace(
        self, workspace_id: str, agent_id: str
    ) -> tuple[AgentRecord | None, WorkspaceRecord | None]: ...
    def list_brands(self, workspace_id: str) -> list[BrandRecord]: ...
    def get_workflow(self, workspace_id: str, workflow_id: str) -> WorkflowRecord | None: ...
    def list_feed(
        self, agent_id: str, *, channel: str | None, category: str | None, limit: int
    ) -> list[PostRecord]: ...
    def list_active_items(self, agent_id: str) -> list[ItemRecord]: ...


class StoredAgents(Protocol):
    def get(self, workspace_id: str, agent_id: str) -> AgentRecord | None: ...
    def list(self, workspace_id: str) -> list[AgentRecord]: ...
    def create(self, agent: AgentRecord, *, new_workflow: WorkflowRecord | None, limit: int, also: Also) -> None: ...
    def update(self, old: AgentRecord, new: AgentRecord, *, also: Also) -> AgentRecord: ...
    def put_document(self, workspace_id: str, agent_id: str, field: str, text: str, at: str, *, also: Also) -> None: ...
    def delete(self, agent: AgentRecord, tombstone: PurgeRecord, *, also: Also) -> None: ...


class Models(Protocol):
    """The deployment's models as the writer checks an agent's choice (``core.platform.model_catalogue.Catalogue``)."""

    def ids(self) -> tuple[str, ...]: ...
    def offered(self, plan: str, limits: PlanLimits) -> tuple[str, ...]: ...
