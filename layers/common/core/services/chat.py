"""``POST /v1/agent/{agentId}/chat``: everything that can refuse a turn happens here, before the stream.

Order: the agent (404), the brand override (400), the visitor's rate limit (429), then
the credits hold (402). Only a turn that passed all four streams (``ChatStream``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from .. import observability
from ..chat.model import ChatModel, ModelRequest, Usage
from ..chat.prompt import build_context, conversation, system_prompt
from ..errors import NotFound, ValidationFailed
from ..ids import new_id, now_iso
from ..models.chat import ChatRequest
from ..models.records import AgentRecord, BrandRecord, WorkspaceRecord
from ..repositories.agents import AgentRepository
from ..repositories.conversations import ConversationStore
from ..repositories.workspaces import WorkspaceRepository
from .chat_stream import ChatStream
from .credits import CreditService
from .rate_limit import SlidingWindowLimiter

logger = logging.getLogger(__name__)
CONTEXT_POSTS = 12
FINISH_SECONDS = 5  # kept back from the invocation's time: settle the turn and say so before Lambda stops it


class ChatService:
    def __init__(
        self,
        *,
        agents: AgentRepository,
        workspaces: WorkspaceRepository,
        limiter: SlidingWindowLimiter,
        credits: CreditService,
        model: Callable[[], ChatModel],
        conversations: ConversationStore,
        price: int,
        visitor_limit: int,
        max_tokens: int,
        keepalive_seconds: float,
    ):
        self._agents = agents
        self._workspaces = workspaces
        self._limiter = limiter
        self._credits = credits
        self._model = model
        self._conversations = conversations
        self._price = price
        self._visitor_limit = visitor_limit
        self._max_tokens = max_tokens
        self._keepalive = keepalive_seconds

    def start(self, workspace_id: str, agent_id: str, request: ChatRequest, *, seconds_left: float) -> ChatStream:
        """A turn ready to stream; ``seconds_left``: the invocation's remaining time (the turn ends before it)."""
        agent = self._agents.get_agent(workspace_id, agent_id)
        workspace = self._workspaces.get(workspace_id) if agent else None
        if agent is None or workspace is None:  # unknown, or another workspace's: the same answer
            raise NotFound("Agent not found")
        brand = self._brand(agent, request.brand_slug)
        self._limiter.take(f"visitor#{agent.id}#{request.client}", self._visitor_limit)
        thread_key = request.thread_key or new_id("thr")
        model_request = self._model_request(workspace, agent, brand, request)
        model = self._model()  # built before the hold: nothing after the hold can fail and strand it
        turn_id = new_id("turn")
        hold = self._credits.hold(workspace.owner_id, "llm", turn_id, self._price, f"Chat with {agent.name}")
        observability.count("ChatTurns")
        transcript = {"turnId": turn_id, "threadKey": thread_key, "agentId": agent.id, "client": request.client,
                      "section": request.section, "prompt": request.prompt}  # fmt: skip

        def store(reply: str, usage: Usage | None, complete: bool) -> None:
            tokens = {"inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens} if usage else None
            self._store(workspace.id, transcript | {"reply": reply, "usage": tokens, "complete": complete})

        return ChatStream(
            turn_id=turn_id, thread_key=thread_key, hold=hold, model=model, request=model_request,
            credits=self._credits, keepalive_seconds=self._keepalive,
            deadline=time.monotonic() + seconds_left - FINISH_SECONDS,
            on_reply=store if workspace.store_conversations else None,
        )  # fmt: skip

    def _brand(self, agent: AgentRecord, brand_slug: str | None) -> BrandRecord | None:
        if brand_slug is None:
            return self._agents.get_brand(agent.workspace_id, agent.brand_id)
        brand = next((b for b in self._workspaces.brands(agent.workspace_id) if b.slug == brand_slug), None)
        if brand is None:
            raise ValidationFailed("brandSlug: must name a brand of the workspace")
        return brand

    def _model_request(
        self, workspace: WorkspaceRecord, agent: AgentRecord, brand: BrandRecord | None, request: ChatRequest
    ) -> ModelRequest:
        history: list[tuple[str | None, str]] = [(entry.role, entry.content) for entry in request.history]
        if not history and request.thread_key and workspace.store_conversations:  # resume it on the server
            history = list(self._conversations.recent(workspace.id, agent.id, request.client, request.thread_key))
        items = self._agents.list_active_items(agent.id)
        posts = self._agents.list_feed(agent.id, channel=None, category=None, limit=CONTEXT_POSTS)
        context = build_context(agent, brand, items, posts, agent.site_json, request.section)
        return ModelRequest(
            system=system_prompt(context),
            messages=conversation(history, request.prompt),
            context=context,
            max_tokens=self._max_tokens,
        )

    def _store(self, workspace_id: str, turn: dict[str, Any]) -> None:
        try:
            self._conversations.save(workspace_id, turn | {"createdAt": now_iso()})
        except Exception:  # the visitor has their answer; a lost transcript must not fail the turn
            logger.exception("storing a chat turn failed", extra={"turnId": turn["turnId"]})
