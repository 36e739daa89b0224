"""``POST /v1/agent/{agentId}/chat``: everything that can refuse a turn happens here, before the stream.

Order: the agent (404), the brand override (400), the visitor's rate limit (429), then
the credits hold (402). Only a turn that passed all four streams (``ChatStream``). The reads
and the visitor's count are issued together, so a refused turn still counts for its visitor. A 402 also marks the
owner's balance exhausted (``Billing.note_exhausted``: once until the next grant, never failing the 402).

The agent's ``behaviour`` shapes the turn: its model (from the deployment's catalogue; a model no longer listed
is the default's), that model's price held and settled, the owner's instructions in the prompt after the service's
rules, the temperature, the reply's token limit, knowledgeOnly and the fallback.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from core.agents.ports import Agents
from core.agents.records import AgentRecord, BehaviourRecord
from core.brands.records import BrandRecord
from core.chat.model import AgentContext, ChatModel, Message, ModelRequest, Usage
from core.chat.models import ChatRequest
from core.chat.ports import Conversations, TurnLogs
from core.chat.prompt import build_context, conversation, system_prompt
from core.chat.stream import ChatStream
from core.credits.billing import Billing
from core.credits.records import HoldUsage
from core.insights.turn_log import DeliveredTurn, TurnLog, is_unanswered
from core.knowledge.index import Passage
from core.knowledge.retrieval import Retriever, usable_sources
from core.platform import observability, rate_limit, together, usage_counters
from core.platform.errors import InsufficientCredits, NotFound, ValidationFailed
from core.platform.ids import new_id, now_iso
from core.platform.model_catalogue import Catalogue, ModelSpec
from core.platform.rate_limit import RateStatus, SlidingWindowLimiter
from core.platform.retention import first_kept_day
from core.workspaces.records import WorkspaceRecord

logger = logging.getLogger(__name__)
Messages = list[tuple[str | None, str]]  # (role, text), oldest first
CONTEXT_POSTS = 12
RECENT_TURNS = 4  # of the thread, whose words also choose the passages (a follow-up keeps its subject)
FINISH_SECONDS = 5  # kept back from the invocation's time: settle the turn and say so before Lambda stops it
# The visitor's rate-limit item also counts the visitor's and their threads' turns of the day (is this turn the
# first? for the insights' distinct visitors and threads), kept this long: nobody reads them later.
VISITOR_KEEP_DAYS = 2


class ChatService:
    def __init__(
        self,
        *,
        agents: Agents,
        limiter: SlidingWindowLimiter,
        credits: Billing,
        model: Callable[[ModelSpec], ChatModel],
        models: Callable[[], Catalogue],
        conversations: Conversations,
        turn_log: TurnLog,
        turn_logs: TurnLogs,
        retriever: Retriever,
        visitor_limit: int,
        keepalive_seconds: float,
    ):
        self._agents = agents
        self._limiter = limiter
        self._credits = credits
        self._model = model
        self._models = models
        self._conversations = conversations
        self._turn_log = turn_log
        self._turn_logs = turn_logs
        self._retriever = retriever
        self._visitor_limit = visitor_limit
        self._keepalive = keepalive_seconds

    def start(
        self, workspace_id: str, agent_id: str, request: ChatRequest, *, seconds_left: float, key_id: str | None = None,
    ) -> ChatStream:  # fmt: skip
        """A turn ready to stream; ``seconds_left``: the invocation's remaining time (the turn ends before it);
        ``key_id``: the key that asked, whose usage (and the agent's) the turn's settlement counts.

        Two round trips before the stream: every read the turn needs (and the visitor's count) at once,
        then the hold. The answers are decided in the documented order whatever order the reads end in. One
        after ``done``: the turn's log (``core.insights.turn_log``), with the stored turn when conversations are kept.
        """
        # The visitor's count also counts the day's turns of the visitor and of the thread (no added call). A new
        # thread's key is made before it, so the thread's first turn is counted under the key its next turns name.
        thread_key = request.thread_key or new_id("thr")
        tags = ("", usage_counters.tag_of(thread_key))
        found, brands, counted, items, posts = together.run(
            lambda: self._agents.get_agent_with_workspace(workspace_id, agent_id),
            lambda: self._agents.list_brands(workspace_id),
            # Scoped by workspace: a turn naming another workspace's agent counts for nobody else's visitor.
            lambda: self._limiter.take(
                f"visitor#{workspace_id}#{agent_id}#{request.client}",
                self._visitor_limit,
                tags=tags,
                keep_days=VISITOR_KEEP_DAYS,
            ),
            lambda: self._agents.list_active_items(agent_id),  # read before the tenant check, used only after it
            lambda: self._agents.list_feed(agent_id, channel=None, category=None, limit=CONTEXT_POSTS),
        )
        agent, workspace = found.result()
        if agent is None or workspace is None:  # unknown, or another workspace's: the same answer
            raise NotFound("Agent not found")
        brand = self._brand(agent, request.brand_slug, brands.result())
        first_visit, first_in_thread = firsts(counted.result(), thread_key, started=request.thread_key is None)  # 429
        history = self._history(workspace, agent, request)
        # The agent's item names its index's version: a container holding it reads nothing more (core.knowledge).
        recent = [text for role, text in history[-RECENT_TURNS:] if role != "assistant"]
        # The index may predate the owner's last item write; this turn's own read of the items decides which
        # documents it may quote (an item deactivated or deleted since is never used, nor named in ``sources``).
        passages = self._retriever.passages(agent, request.prompt, recent, usable_sources(items.result()))
        context = build_context(agent, brand, items.result(), posts.result(), agent.site_json, request.section,
                                passages)  # fmt: skip
        behaviour = agent.behaviour
        spec = self.model_of(behaviour)
        model_request = request_for(context, behaviour, conversation(history, request.prompt))
        model = self._model(spec)  # built before the hold: nothing after the hold can fail and strand it
        turn_id = new_id("turn")
        # The usage's day is the read plane's clock's (the limiter's): the day this request counted on its key.
        usage = HoldUsage(workspace_id=workspace.id, key_id=key_id, agent_id=agent.id,
                          day=datetime.fromtimestamp(rate_limit.now(), UTC).strftime("%Y-%m-%d"))  # fmt: skip
        try:
            hold = self._credits.hold(workspace.owner_id, "llm", turn_id, spec.credits_per_turn,
                                      turn_description(agent, spec), usage=usage)  # fmt: skip
        except InsufficientCredits:  # the 402 stands; its one added write marks the exhaustion (credits.exhausted)
            self._credits.note_exhausted(workspace.owner_id, workspace.id, agent.id)
            raise
        observability.count("ChatTurns")
        transcript = {"turnId": turn_id, "threadKey": thread_key, "agentId": agent.id, "client": request.client,
                      "section": request.section, "prompt": request.prompt}  # fmt: skip
        sources = sources_of(passages)

        def log(reply: str, usage: Usage | None, complete: bool) -> None:  # only a delivered turn: it was charged
            delivered = DeliveredTurn(
                workspace_id=workspace.id, agent_id=agent.id, turn_id=turn_id, thread_key=thread_key,
                client=request.client, key_id=key_id, created_at=now_iso(), prompt=request.prompt, reply=reply,
                credits=hold.amount, sources=sources,
                unanswered=is_unanswered(bool(passages), behaviour.fallback, reply),
                first_visit=first_visit, first_in_thread=first_in_thread, stored=workspace.store_conversations,
                retention_days=workspace.conversation_retention_days,
            )  # fmt: skip
            tokens = {"inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens} if usage else None
            turn = transcript | {"reply": reply, "usage": tokens, "complete": complete, "credits": hold.amount}
            self._log(delivered, turn)

        return ChatStream(
            turn_id=turn_id, thread_key=thread_key, hold=hold, model=model, request=model_request,
            credits=self._credits, keepalive_seconds=self._keepalive,
            deadline=time.monotonic() + seconds_left - FINISH_SECONDS, on_reply=log, sources=sources,
        )  # fmt: skip

    def model_of(self, behaviour: BehaviourRecord) -> ModelSpec:
        """The model a turn runs on and is priced by: the behaviour's, or the default's when unset or no longer
        listed (a model removed from the deployment never fails an agent's turns)."""
        return self._models().resolve(behaviour.model)

    @staticmethod
    def _brand(agent: AgentRecord, brand_slug: str | None, brands: list[BrandRecord]) -> BrandRecord | None:
        """The agent's own brand, or the workspace's brand named by ``brand_slug`` (400 if none is)."""
        if brand_slug is None:
            return next((b for b in brands if b.id == agent.brand_id), None)
        brand = next((b for b in brands if b.slug == brand_slug), None)
        if brand is None:
            raise ValidationFailed("brandSlug: must name a brand of the workspace")
        return brand

    def _history(
        self, workspace: WorkspaceRecord, agent: AgentRecord, request: ChatRequest
    ) -> list[tuple[str | None, str]]:
        history: list[tuple[str | None, str]] = [(entry.role, entry.content) for entry in request.history]
        if not history and request.thread_key and workspace.store_conversations:  # resume it on the server
            first_day = first_kept_day(workspace.conversation_retention_days)  # turns past retention are gone
            history = list(self._conversations.recent(agent.id, request.client, request.thread_key, first_day))
        return history

    def _log(self, delivered: DeliveredTurn, turn: dict[str, Any]) -> None:
        """The turn's one write after ``done``: its receipt and counts, and (when kept) the stored turn, together."""
        try:
            actions = self._turn_log.actions(delivered)
            if delivered.stored:
                self._conversations.stage(
                    actions, delivered.workspace_id, turn | {"createdAt": delivered.created_at},
                    delivered.retention_days,
                )  # fmt: skip
            self._turn_logs.record(actions)
        except Exception:  # the visitor has their answer and was billed; a lost log must not fail the turn
            logger.exception("logging a chat turn failed", extra={"turnId": delivered.turn_id})


def firsts(counted: RateStatus, thread_key: str, *, started: bool) -> tuple[bool, bool]:
    """(the visitor's first turn today, the thread's first turn today) from the visitor's count's usage counters
    as its write left them. ``started``: the turn starts the thread (its key was made for it), a first whatever the
    counters say. A thread the turn did not start, past the day's 16 tags (``usage_counters.MAX_AGENTS_A_DAY``), was
    not counted: not a first."""
    visitor = thread = False
    for name, count in counted.usage.items():
        parsed = usage_counters.parse(name)
        if parsed is None or count != 1:
            continue
        visitor = visitor or parsed[2] is None
        thread = thread or parsed[2] == thread_key
    return visitor, thread or started


def request_for(context: AgentContext, behaviour: BehaviourRecord, messages: tuple[Message, ...]) -> ModelRequest:
    """What the model is asked: the prompt (the rules, the owner's instructions, the material), the conversation and
    the behaviour's settings, which the offline model reads from here and a real model from ``system`` as well."""
    return ModelRequest(
        system=system_prompt(context, behaviour), messages=messages, context=context,
        max_tokens=behaviour.max_reply_tokens, temperature=behaviour.temperature, fallback=behaviour.fallback,
        knowledge_only=behaviour.knowledge_only,
    )  # fmt: skip


def turn_description(agent: AgentRecord, spec: ModelSpec) -> str:
    """The hold's description, which becomes the ledger entry's: the agent and the model the turn was priced by
    (the entry's wire shape has no field of its own for the model)."""
    return f"Chat with {agent.name} · {spec.id}"


def sources_of(passages: list[Passage]) -> list[dict[str, str | None]]:
    """The ``sources`` event's list: each source once, where its best passage stands, most relevant first; and each
    title once per place. Posts of one series share a title ("Opening", "Today's special"): a visitor shown the same
    name three times reads a glitch, so the most relevant of them stands for the others at that place."""
    sources, seen, places = [], set(), set()
    for passage in passages:
        source = passage.source
        ident, place = (source.item_id, source.post_id, source.answer_id, source.name), (source.name, passage.where)
        if ident in seen or place in places:
            continue
        seen.add(ident)
        places.add(place)
        sources.append(source.wire(passage.where))
    return sources
