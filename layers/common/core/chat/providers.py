"""The chat's providers: the deployment's models, one ``ChatModel`` per model, and the turn service (billed)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from core.platform import aws, registry
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:  # each provider imports what it builds: a function loads the modules it uses, no others
    from core.chat.conversations import ConversationReader
    from core.chat.erasure import ConversationEraser
    from core.chat.model import ChatModel
    from core.chat.preview import PreviewService
    from core.chat.restamp import RetentionStamper
    from core.chat.service import ChatService
    from core.platform.model_catalogue import ModelSpec


def _model(spec: ModelSpec) -> ChatModel:
    """The model ``spec`` names, built on first use and kept for the container's life (one per model id)."""
    settings = get_settings()
    if spec.provider == "offline":
        from core.chat.offline import OfflineModel

        return OfflineModel(delay_seconds=settings.offline_model_delay_ms / 1000, gate=settings.offline_model_gate)
    if spec.provider == "openai":
        from core.chat.openai_compat import model_for  # only here: a function of Bedrock models never loads it

        return model_for(spec)
    from core.chat.bedrock import BedrockModel

    return BedrockModel(aws.bedrock_runtime(), spec.model_id or settings.bedrock_model_id)


# Cached per spec (a frozen, hashable value: its id and settings), cleared by ``platform_providers.reset()``.
model: Callable[[ModelSpec], ChatModel] = registry.track(cache(_model))


@per_container
def service() -> ChatService:
    from core.agents.store import PublishedAgentStore
    from core.chat.conversation_store import ConversationStore
    from core.chat.service import ChatService
    from core.credits import providers as credits
    from core.insights.turn_log import TurnLog
    from core.insights.turn_log_store import TurnLogStore
    from core.knowledge import providers as knowledge
    from core.platform.model_catalogue import catalogue
    from core.platform.rate_limit import SlidingWindowLimiter
    from core.platform.rate_limit_store import RateLimitStore

    settings = get_settings()
    return ChatService(
        agents=PublishedAgentStore(aws.dynamodb(), settings.main_table),
        limiter=SlidingWindowLimiter(RateLimitStore(aws.dynamodb(), settings.rate_limits_table)),
        credits=credits.billing(),
        model=model,
        models=catalogue,
        conversations=ConversationStore(aws.dynamodb(), settings.main_table),
        turn_log=TurnLog(settings.main_table),
        turn_logs=TurnLogStore(aws.dynamodb()),
        retriever=knowledge.retriever(),
        visitor_limit=settings.chat_visitor_turns_per_minute,
        keepalive_seconds=settings.chat_keepalive_seconds,
    )


@per_container
def preview() -> PreviewService:
    """An owner's preview of an agent (the management plane): a chat turn billed to the workspace's owner, limited
    per user, never stored (``core.chat.preview``)."""
    from core.agents.store import PublishedAgentStore
    from core.chat.preview import PreviewService
    from core.credits import providers as credits
    from core.knowledge import providers as knowledge
    from core.platform.model_catalogue import catalogue
    from core.platform.rate_limit import SlidingWindowLimiter
    from core.platform.rate_limit_store import RateLimitStore
    from core.workspaces import providers as workspaces

    settings = get_settings()
    return PreviewService(
        access=workspaces.access(),
        agents=PublishedAgentStore(aws.dynamodb(), settings.main_table),
        limiter=SlidingWindowLimiter(RateLimitStore(aws.dynamodb(), settings.rate_limits_table)),
        credits=credits.billing(),
        model=model,
        models=catalogue,
        retriever=knowledge.retriever(),
        per_minute=settings.preview_turns_per_minute,
        keepalive_seconds=settings.chat_keepalive_seconds,
    )


@per_container
def restamper() -> RetentionStamper:
    """Stored turns re-stamped after a retention change (the workspace worker's; ``core.chat.restamp``)."""
    from core.agents.write_store import AgentStore
    from core.chat.restamp import Retention, RetentionStamper
    from core.chat.thread_store import ThreadStore
    from core.workspaces.store import WorkspaceStore

    settings = get_settings()
    workspaces, agents = (
        WorkspaceStore(aws.dynamodb(), settings.main_table),
        AgentStore(aws.dynamodb(), settings.main_table),
    )

    def retention_of(workspace_id: str) -> Retention | None:
        found = workspaces.get(workspace_id)
        return Retention(found.conversation_retention_days, found.store_conversations) if found is not None else None

    def agents_of(workspace_id: str) -> list[str]:
        return [agent.id for agent in agents.list(workspace_id)]

    return RetentionStamper(
        retention_of, agents_of, ThreadStore(aws.dynamodb(), settings.main_table), workspaces.mark_retention_applied,
    )  # fmt: skip


@per_container
def conversations() -> ConversationReader:
    """Stored conversations read back by owners and admins (the management plane; the chat never builds it)."""
    from core.chat.conversations import ConversationReader
    from core.chat.thread_store import ThreadStore
    from core.workspaces import providers as workspaces

    access = workspaces.access()
    return ConversationReader(ThreadStore(aws.dynamodb(), get_settings().main_table), access.agent_writer)


@per_container
def eraser() -> ConversationEraser:
    from core.audit import providers as audit
    from core.chat.erasure import ConversationEraser
    from core.chat.thread_store import ThreadStore
    from core.workspaces import providers as workspaces

    store = ThreadStore(aws.dynamodb(), get_settings().main_table)
    return ConversationEraser(workspaces.access(), store, audit.writes())
