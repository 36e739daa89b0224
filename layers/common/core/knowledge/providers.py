"""The knowledge providers: the chat's retriever, the owners' search, the writers' ``notify``, the worker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.knowledge.retrieval import Retriever
    from core.knowledge.search import KnowledgeSearch
    from core.knowledge.worker import KnowledgeWorker


@per_container
def retriever() -> Retriever:
    from core.knowledge.retrieval import Retriever
    from core.knowledge.store import KnowledgeReadStore

    return Retriever(KnowledgeReadStore(aws.s3(), get_settings().content_bucket))


@per_container
def search() -> KnowledgeSearch:
    """``POST …/knowledge/search`` (the management plane): a member's access check, the agent's active items, the
    chat's ranking."""
    from core.agents.records import AgentRecord
    from core.agents.store import PublishedAgentStore
    from core.knowledge.search import KnowledgeSearch
    from core.workspaces import providers as workspaces

    access = workspaces.access()

    def agent_of(user_id: str, workspace_id: str, agent_id: str) -> AgentRecord:
        return AgentRecord.model_validate(access.member(user_id, workspace_id, agent_id).agent)

    agents = PublishedAgentStore(aws.dynamodb(), get_settings().main_table)
    return KnowledgeSearch(agent_of, agents.list_active_items, retriever())


@per_container
def worker() -> KnowledgeWorker:
    from core.identity import providers as identity
    from core.knowledge.worker import KnowledgeWorker
    from core.knowledge.write_store import KnowledgeStore
    from core.workspaces.providers import plan_of
    from core.workspaces.store import WorkspaceStore

    settings = get_settings()
    workspaces = WorkspaceStore(aws.dynamodb(), settings.main_table)

    def plan_chars(workspace_id: str) -> int:
        """The owner's plan's characters per agent (a workspace gone meanwhile: the free plan's; its agents go too)."""
        workspace = workspaces.get(workspace_id)
        owner = identity.users().get(workspace.owner_id) if workspace else None
        return plan_of(owner.plan if owner else "free").knowledge_chars

    store = KnowledgeStore(aws.dynamodb(), settings.main_table, aws.s3(), settings.content_bucket)
    return KnowledgeWorker(store, plan_chars=plan_chars)
