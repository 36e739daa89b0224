"""``POST /api/workspaces/{id}/agents/{agentId}/preview``: an owner tries the agent before visitors do.

The turn is a chat turn (``core.chat.service``'s prompt, model, price and stream), with four differences:

- who asks is a member of the workspace (a portal JWT), not a visitor with a key; the workspace's owner pays, the
  price of the model the turn runs on, as for any turn (the ledger entry says "Preview of …");
- ``behaviour`` in the body overrides the saved one for this turn only, validated as the agent's PATCH validates it
  (``core.agents.writer``: 400 for a model the deployment does not list, 402 for one the owner's plan does not offer);
- the stream carries one line more, ``retrieval``, right after ``start``: every passage the retrieval considered,
  with its score and whether it was put before the model, so the owner sees why the answer came out as it did;
- nothing is stored as a visitor's conversation, and no thread is resumed: the body's ``history`` is the thread.

Order of the answers: the caller's access and the agent (404), the override's model (400, 402), the caller's
previews this minute (429, per user over every workspace), then the owner's credits (402). The access check, the
caller's count and the turn's reads are issued together, as the chat's are; the reads are used only after the
check has passed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from core.agents.ports import Agents
from core.agents.records import AgentRecord
from core.agents.writer import behaved, check_model
from core.chat.model import ChatModel
from core.chat.preview_models import ChatRetrievalEvent, ConsideredPassage, PreviewRequest
from core.chat.prompt import build_context, conversation
from core.chat.service import CONTEXT_POSTS, FINISH_SECONDS, RECENT_TURNS, request_for, sources_of
from core.chat.stream import ChatStream, ndjson
from core.credits.billing import Billing
from core.credits.records import HoldUsage
from core.knowledge.retrieval import Retriever, usable_sources
from core.platform import rate_limit, together
from core.platform.ids import new_id
from core.platform.model_catalogue import Catalogue, ModelSpec
from core.platform.rate_limit import SlidingWindowLimiter
from core.workspaces.access import AuthoringAccess

logger = logging.getLogger(__name__)


class PreviewStream:
    """The turn's NDJSON lines with the ``retrieval`` line after ``start``; closing it closes the turn (which bills
    what was delivered, once, as a chat turn does)."""

    def __init__(self, turn: ChatStream, retrieval: bytes):
        self.turn = turn
        self._retrieval = retrieval

    def __iter__(self) -> Iterator[bytes]:
        return self._lines()

    def close(self) -> None:
        self.turn.close()

    def _lines(self) -> Iterator[bytes]:
        lines = iter(self.turn)
        try:
            start = next(lines, None)
            if start is None:
                return
            yield start
            yield self._retrieval
            yield from lines
        finally:
            close = getattr(lines, "close", None)
            if close is not None:
                close()  # the turn's own ``finally``: settle or release its hold, even when the reader left early


class PreviewService:
    def __init__(
        self,
        *,
        access: AuthoringAccess,
        agents: Agents,
        limiter: SlidingWindowLimiter,
        credits: Billing,
        model: Callable[[ModelSpec], ChatModel],
        models: Callable[[], Catalogue],
        retriever: Retriever,
        per_minute: int,
        keepalive_seconds: float,
    ):
        self._access = access
        self._agents = agents
        self._limiter = limiter
        self._credits = credits
        self._model = model
        self._models = models
        self._retriever = retriever
        self._per_minute = per_minute
        self._keepalive = keepalive_seconds

    def start(
        self, user_id: str, workspace_id: str, agent_id: str, request: PreviewRequest, *, seconds_left: float
    ) -> PreviewStream:
        """A preview ready to stream; ``seconds_left``: the invocation's remaining time (the turn ends before it)."""
        checked, counted, brands, items, posts = together.run(
            lambda: self._access.member(user_id, workspace_id, agent_id),
            # Per user, whatever the workspace: a member of many workspaces has one budget of previews.
            lambda: self._limiter.take(f"preview#{user_id}", self._per_minute),
            lambda: self._agents.list_brands(workspace_id),  # the reads: used only once the check has passed
            lambda: self._agents.list_active_items(agent_id),
            lambda: self._agents.list_feed(agent_id, channel=None, category=None, limit=CONTEXT_POSTS),
        )
        access = checked.result()  # 404: not a member, or not this workspace's agent
        agent = AgentRecord.model_validate(access.agent)
        if request.behaviour is not None and request.behaviour.model is not None:  # 400, 402
            plan = self._access.plan_name(access)
            check_model(self._models(), request.behaviour.model, plan, self._access.limits(plan))
        behaviour = behaved(agent.behaviour, request.behaviour)
        counted.result()  # 429
        brand = next((b for b in brands.result() if b.id == agent.brand_id), None)
        history: list[tuple[str | None, str]] = [(entry.role, entry.content) for entry in request.history]
        recent = [text for role, text in history[-RECENT_TURNS:] if role != "assistant"]
        # The chat's retrieval, with its reasons: the passages it takes are exactly the turn's (``passages``).
        considered = self._retriever.considered(agent, request.prompt, recent, usable_sources(items.result()))
        passages = [passage for passage, used in considered if used]
        context = build_context(agent, brand, items.result(), posts.result(), agent.site_json, request.section,
                                passages)  # fmt: skip
        spec = self._models().resolve(behaviour.model)
        model_request = request_for(context, behaviour, conversation(history, request.prompt))
        model = self._model(spec)  # built before the hold: nothing after the hold can fail and strand it
        turn_id = new_id("turn")
        # Counted in the agent's usage (no key asked): its credits there agree with the ledger's.
        usage = HoldUsage(workspace_id=access.workspace.id, agent_id=agent.id,
                          day=datetime.fromtimestamp(rate_limit.now(), UTC).strftime("%Y-%m-%d"))  # fmt: skip
        hold = self._credits.hold(access.workspace.owner_id, "llm", turn_id, spec.credits_per_turn,
                                  preview_description(agent, spec), usage=usage)  # fmt: skip
        retrieval = ChatRetrievalEvent(
            type="retrieval", passages=[ConsideredPassage.considered(passage, used) for passage, used in considered]
        )
        turn = ChatStream(
            turn_id=turn_id, thread_key=new_id("thr"), hold=hold, model=model, request=model_request,
            credits=self._credits, keepalive_seconds=self._keepalive,
            deadline=time.monotonic() + seconds_left - FINISH_SECONDS,
            on_reply=None,  # never stored as a visitor's conversation
            sources=sources_of(passages),
        )  # fmt: skip
        return PreviewStream(turn, ndjson(retrieval.wire()))


def preview_description(agent: AgentRecord, spec: ModelSpec) -> str:
    """The hold's (and so the ledger entry's) description: a preview, the agent and the model it was priced by."""
    return f"Preview of {agent.name} · {spec.id}"
