"""Published agent data for the read plane: metadata, feed, items, wrap, site, suggestions."""

from __future__ import annotations

import logging
from collections.abc import Callable

from core.agents import documents
from core.agents.models import AgentMetadata, SiteConfig, Suggestions, WrapConfig
from core.agents.ports import Agents
from core.agents.records import AgentRecord
from core.brands.models import BrandRef
from core.items.models import Item
from core.platform import together
from core.platform.errors import NotFound, ValidationFailed
from core.posts.feed import to_feed_post
from core.posts.feed_cache import RecentFeeds
from core.posts.models import FeedPost

logger = logging.getLogger(__name__)

FEED_LIMIT = 120
MAX_FILTER_LENGTH = 100


def _filter_value(name: str, value: str | None) -> str | None:
    if value is None:
        return None
    if not value or len(value) > MAX_FILTER_LENGTH:
        raise ValidationFailed(f"{name}: must be 1-{MAX_FILTER_LENGTH} characters")
    return value


class ReadPlaneService:
    def __init__(self, agents: Agents, feeds: RecentFeeds | None = None):
        self._agents = agents
        self._feeds = feeds or RecentFeeds()

    def _agent(self, workspace_id: str, agent_id: str) -> AgentRecord:
        agent = self._agents.get_agent(workspace_id, agent_id)
        if agent is None:  # unknown, or another workspace's: the same answer, nothing leaked
            raise NotFound("Agent not found")
        return agent

    def _agent_and[T](self, workspace_id: str, agent_id: str, read: Callable[[], T]) -> tuple[AgentRecord, T]:
        """The agent (404 as ``_agent``) and ``read()``, issued together: the read's answer is used only
        after the tenant check, so one round trip serves both."""
        agent, other = together.run(lambda: self._agents.get_agent(workspace_id, agent_id), read)
        if agent.result() is None:
            raise NotFound("Agent not found")
        return agent.result(), other.result()

    def metadata(self, workspace_id: str, agent_id: str) -> AgentMetadata:
        agent, brands = self._agent_and(workspace_id, agent_id, lambda: self._agents.list_brands(workspace_id))
        brand = next((b for b in brands if b.id == agent.brand_id), None)
        if brand is None:
            logger.warning("agent brand missing", extra={"agentId": agent.id, "brandId": agent.brand_id})
        ref = BrandRef(id=agent.brand_id, slug=brand.slug if brand else "", name=brand.name if brand else "")
        return AgentMetadata(
            id=agent.id, slug=agent.slug, name=agent.name, brand=ref, active_workflow_id=agent.active_workflow_id
        )

    def feed(self, workspace_id: str, agent_id: str, *, channel: str | None, category: str | None) -> list[FeedPost]:
        channel = _filter_value("channel", channel)
        category = _filter_value("category", category)

        def read() -> list[FeedPost]:
            _, posts = self._agent_and(
                workspace_id,
                agent_id,
                lambda: self._agents.list_feed(agent_id, channel=channel, category=category, limit=FEED_LIMIT),
            )
            return [to_feed_post(p) for p in posts]

        return self._feeds.get_or_read((workspace_id, agent_id, channel, category), read)

    def items(self, workspace_id: str, agent_id: str) -> list[Item]:
        _, found = self._agent_and(workspace_id, agent_id, lambda: self._agents.list_active_items(agent_id))
        records = sorted(found, key=lambda i: (i.folder, i.order, i.id))
        return [Item.from_record(r) for r in records]

    def wrap(self, workspace_id: str, agent_id: str) -> WrapConfig:
        return documents.parse_wrap(self._agent(workspace_id, agent_id).wrap_json)

    def site(self, workspace_id: str, agent_id: str) -> SiteConfig:
        return documents.parse_site(self._agent(workspace_id, agent_id).site_json)

    def suggestions(self, workspace_id: str, agent_id: str) -> Suggestions:
        agent = self._agent(workspace_id, agent_id)
        workflow = self._agents.get_workflow(workspace_id, agent.active_workflow_id)
        return documents.parse_suggestions(workflow.suggestions_json if workflow else None)
