"""``POST /api/workspaces/{id}/agents/{agentId}/knowledge/search``: what a chat turn would retrieve, unbilled.

The ranking is the turn's own (``Retriever``: the same index, terms and filter), judged by the same read of the
agent's active items, so a document deactivated or deleted since the index was built is not shown either.
"""

from __future__ import annotations

from collections.abc import Callable

from core.agents.records import AgentRecord
from core.items.records import ItemRecord
from core.knowledge.models import KnowledgeSearchRequest, KnowledgeSearchResult, RetrievedPassage
from core.knowledge.retrieval import Retriever, usable_sources

# (user id, workspace id, agent id) -> the agent as stored, once the caller is found a member (404 otherwise, and
# for another workspace's agent): the workspaces' access check, handed over by the provider.
AgentOf = Callable[[str, str, str], AgentRecord]


class KnowledgeSearch:
    def __init__(self, agent_of: AgentOf, active_items: Callable[[str], list[ItemRecord]], retriever: Retriever):
        self._agent_of = agent_of
        self._active_items = active_items
        self._retriever = retriever

    def search(
        self, user_id: str, workspace_id: str, agent_id: str, request: KnowledgeSearchRequest
    ) -> KnowledgeSearchResult:
        agent = self._agent_of(user_id, workspace_id, agent_id)
        usable = usable_sources(self._active_items(agent.id))
        found = self._retriever.search(agent, request.query, request.limit, usable)
        return KnowledgeSearchResult(passages=[RetrievedPassage.of(passage) for passage in found])
