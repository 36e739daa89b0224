"""Agents (authoring.md, "Agents"): create within the plan, rename, repoint, publish documents, delete.

An agent's ``behaviour`` (how it answers: instructions, model, temperature, reply length, knowledge only, fallback)
is stored whole on its item; a body's behaviour fields change only those, ``null`` putting one back to its default.
A model must be one the deployment lists (400) and that the workspace owner's plan offers (402).

Deleting is immediate for every reader (the agent's item goes in the deleting transaction) and leaves a tombstone;
the purge worker then removes its posts, copies, items, objects and stored conversations in the background, as
it does for a workspace. A retried DELETE finds the tombstone and queues the purge again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from core.agents.ports import Models, StoredAgents
from core.agents.records import DEFAULT_BEHAVIOUR, AgentRecord, BehaviourRecord
from core.agents.writer_models import (
    Agent,
    AgentCreate,
    AgentEnvelope,
    AgentList,
    AgentQuery,
    AgentUpdate,
    BehaviourPatch,
    SiteEnvelope,
    WrapEnvelope,
)
from core.audit.writes import Author, Write, Writes, until_unchanged
from core.platform import pages, together
from core.platform.envelopes import Deleted
from core.platform.errors import NotFound, PlanLimitReached, ValidationFailed
from core.platform.ids import new_id, now_iso
from core.platform.settings import PLAN_LIMITS, RAISED_BY, PlanLimits, plan_limit_message
from core.platform.write_fields import changes, document_size_problem
from core.workflows.records import WorkflowRecord
from core.workspaces.access import AuthoringAccess
from core.workspaces.create import slugify
from core.workspaces.membership import WorkspaceAccess
from core.workspaces.ports import WorkspaceRecords
from core.workspaces.records import PurgeRecord

DOCUMENTS = {"wrap": "wrapJson", "site": "siteJson"}


def agent_view(record: AgentRecord) -> Agent:
    return Agent.from_record(record)


def stored_agent(access: WorkspaceAccess) -> AgentRecord:
    """The agent the access check read in its one BatchGetItem (the check has answered 404 if there is none)."""
    return AgentRecord.model_validate(access.agent)


def behaved(current: BehaviourRecord, patch: BehaviourPatch | None) -> BehaviourRecord:
    """``current`` with the fields ``patch`` sent: a value replaces the field's, a ``null`` restores its default."""
    if patch is None:
        return current
    sent = {name: getattr(patch, name) for name in patch.model_fields_set}
    return current.model_copy(
        update={name: getattr(DEFAULT_BEHAVIOUR, name) if value is None else value for name, value in sent.items()}
    )


def check_model(models: Models, model_id: str, plan: str, limits: PlanLimits) -> None:
    """400 for a model the deployment does not list; 402 for one the owner's plan does not offer (naming the plan,
    the models it offers and the plans that offer this one)."""
    listed = models.ids()
    if model_id not in listed:
        raise ValidationFailed(f"behaviour.model: {model_id!r} is not a model of this deployment "
                               f"(GET /api/models lists them: {', '.join(listed)})")  # fmt: skip
    offered = models.offered(plan, limits)
    if model_id not in offered:
        others = [name for name, other in PLAN_LIMITS.items() if model_id in models.offered(name, other)]
        said = f"The {plan} plan does not offer the model {model_id}; it offers {', '.join(offered) or 'none'}"
        said += f" ({', '.join(others)} offer {model_id})." if others else "."
        raise PlanLimitReached(f"{said} {RAISED_BY}")


def checked_document(kind: str, document: Any) -> dict[str, Any]:
    """A published document: a JSON object of at most 64 KiB; a site's has a ``pages`` array."""
    if not isinstance(document, dict):
        raise ValidationFailed("body: must be a JSON object")
    if kind == "site" and not isinstance(document.get("pages"), list):
        raise ValidationFailed("pages: must be an array")
    if problem := document_size_problem(document):
        raise ValidationFailed(f"body: {problem}")
    return document


class AgentService:
    def __init__(
        self,
        access: AuthoringAccess,
        agents: StoredAgents,
        tombstones: WorkspaceRecords,
        writes: Writes,
        *,
        enqueue_purge: Callable[[str, str], None],
        notify: Callable[[str, str], None],
        models: Callable[[], Models],
    ):
        self._access = access
        self._models = models  # the deployment's catalogue, loaded only by a write that names a model
        self._agents = agents
        self._tombstones = tombstones
        self._writes = writes
        self._enqueue_purge = enqueue_purge
        self._notify = notify  # what the agent knows holds its site's sections (core.platform.jobs.reread_agent)

    # --- reads (any member)

    def list(self, user_id: str, workspace_id: str, query: AgentQuery) -> AgentList:
        """Oldest first (ids are ULIDs of their creation): one page and one agent more, their counters items' page
        from the same start and the member check, all in one round trip; a bad cursor is refused after the check
        (a stranger learns nothing)."""

        def after_id() -> str | None:  # raised in the reads, so answered after the member check's 404
            after = pages.after(query.cursor, "AGENT#")
            return after.removeprefix("AGENT#") if after else None

        access, agents, counts = together.run(
            lambda: self._access.member(user_id, workspace_id),
            lambda: self._agents.page(workspace_id, query.limit + 1, after_id()),
            lambda: self._agents.page_counts(workspace_id, query.limit + 1, after_id()),
        )  # fmt: skip
        access.result()
        shown, cursor = pages.cut(agents.result(), query.limit, lambda a: f"AGENT#{a.id}")
        counted = [self._agents.counted(a, counts.result().get(a.id)) for a in shown]
        return AgentList(agents=[agent_view(a) for a in counted], next_cursor=cursor)

    def get(self, user_id: str, workspace_id: str, agent_id: str) -> Agent:
        return agent_view(stored_agent(self._access.member(user_id, workspace_id, agent_id)))

    def document(self, user_id: str, workspace_id: str, agent_id: str, kind: str) -> dict[str, Any] | None:
        """The published wrap or site as stored (None before any): what export reads back."""
        agent = stored_agent(self._access.member(user_id, workspace_id, agent_id))
        text = agent.wrap_json if kind == "wrap" else agent.site_json
        return json.loads(text) if text else None

    # --- writes (owner, admin)

    def create(self, author: Author, workspace_id: str, request: AgentCreate) -> AgentEnvelope:
        access = self._access.writer(author.user_id, workspace_id, with_user=True)
        plan = self._access.plan_name(access)
        limit = self._access.limits(plan).agents_per_workspace
        if request.behaviour is not None and request.behaviour.model is not None:
            check_model(self._models(), request.behaviour.model, plan, self._access.limits(plan))
        workspace, now = access.workspace, now_iso()
        agent = AgentRecord(
            id=new_id("prj"), workspace_id=workspace_id, slug=request.slug or slugify(request.name, "agent"),
            name=request.name, brand_id=request.brand_id or workspace.default_brand_id,
            active_workflow_id=request.active_workflow_id or new_id("wf"), created_at=now, updated_at=now,
            behaviour=behaved(DEFAULT_BEHAVIOUR, request.behaviour),
        )  # fmt: skip
        workflow = None
        if request.active_workflow_id is None:  # the agent gets a workflow of its own, made in the same write
            workflow = WorkflowRecord(id=agent.active_workflow_id, workspace_id=workspace_id, name=request.name,
                                      created_at=now, updated_at=now)  # fmt: skip

        def work(write: Write) -> AgentEnvelope:
            answer = AgentEnvelope(agent=agent_view(agent))
            try:
                self._agents.create(agent, new_workflow=workflow, limit=limit,
                                    also=write.also(f"agent:{agent.id}", answer))  # fmt: skip
            except PlanLimitReached:
                said = plan_limit_message(plan, "agents_per_workspace", "agents in a workspace")
                raise PlanLimitReached(said) from None
            return answer

        return self._writes.run(author, workspace_id, "agent.create", on=workspace_id, request=request,
                                answer=AgentEnvelope, work=work)  # fmt: skip

    def update(self, author: Author, workspace_id: str, agent_id: str, request: AgentUpdate) -> AgentEnvelope:
        model = request.behaviour.model if request.behaviour is not None else None
        if model is None:
            access = self._access.agent_writer(author.user_id, workspace_id, agent_id)
        else:  # the plan is the owner's: read with the caller's user in the access check's one read
            access = self._access.writer(author.user_id, workspace_id, with_user=True, agent_id=agent_id)
            if access.agent is None:
                raise NotFound("Agent not found")
            plan = self._access.plan_name(access)
            check_model(self._models(), model, plan, self._access.limits(plan))
        first = stored_agent(access)
        wanted = changes(request)
        patch = wanted.pop("behaviour", None)

        def work(write: Write) -> AgentEnvelope:
            reads = iter([first])

            def attempt() -> AgentRecord:
                old = next(reads, None) or self._agents.get(workspace_id, agent_id)
                if old is None:
                    raise NotFound("Agent not found")
                new = old.model_copy(update=wanted | {"behaviour": behaved(old.behaviour, patch)})
                if new == old:
                    return write.unchanged(f"agent:{agent_id}", AgentEnvelope(agent=agent_view(old)), old)
                new = new.model_copy(update={"updated_at": now_iso()})
                also = write.also(f"agent:{agent_id}", AgentEnvelope(agent=agent_view(new)))
                return self._agents.update(old, new, also=also)

            return AgentEnvelope(agent=agent_view(until_unchanged(attempt)))

        return self._writes.run(author, access.workspace.id, "agent.update", on=agent_id, request=request,
                                answer=AgentEnvelope, work=work)  # fmt: skip

    def publish_wrap(self, author: Author, workspace_id: str, agent_id: str, document: Any) -> WrapEnvelope:
        """PUT wrap: the read plane serves it on its next read of the agent."""
        return self._publish(author, workspace_id, agent_id, kind="wrap", document=document, answer=WrapEnvelope)

    def publish_site(self, author: Author, workspace_id: str, agent_id: str, document: Any) -> SiteEnvelope:
        """PUT site: the read plane serves it on its next read of the agent."""
        return self._publish(author, workspace_id, agent_id, kind="site", document=document, answer=SiteEnvelope)

    def _publish[E: (WrapEnvelope, SiteEnvelope)](
        self, author: Author, workspace_id: str, agent_id: str, *, kind: str, document: Any, answer: type[E]
    ) -> E:
        self._access.agent_writer(author.user_id, workspace_id, agent_id)
        document = checked_document(kind, document)
        text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
        published = answer.model_validate({kind: document})

        def work(write: Write) -> E:
            also = write.also(f"agent:{agent_id}", published)
            self._agents.put_document(workspace_id, agent_id, DOCUMENTS[kind], text, now_iso(), also=also)
            if kind == "site":
                self._notify(workspace_id, agent_id)
            return published

        return self._writes.run(author, workspace_id, f"agent.{kind}.put", on=agent_id, request={"document": text},
                                answer=answer, work=work)  # fmt: skip

    def delete(self, author: Author, workspace_id: str, agent_id: str) -> Deleted:
        access, read = together.checked_then_read(
            lambda: self._access.writer(author.user_id, workspace_id), lambda: self._agents.get(workspace_id, agent_id)
        )

        def work(write: Write) -> Deleted:
            def attempt() -> None:  # again while an edit moves the agent first: it frees what the agent names
                agent = read()
                if agent is None:  # gone: a retry after a lost answer (or a failed enqueue) queues the purge again
                    if self._tombstones.agent_tombstone(workspace_id, agent_id) is None:
                        raise NotFound("Agent not found")
                    return
                tombstone = PurgeRecord(workspace_id=workspace_id, owner_id=access.workspace.owner_id,
                                        deleted_at=now_iso())  # fmt: skip
                self._agents.delete(agent, tombstone, also=write.also(f"agent:{agent_id}", Deleted()))

            until_unchanged(attempt)
            return Deleted()

        deleted = self._writes.run(author, workspace_id, "agent.delete", on=agent_id, request=None, answer=Deleted,
                                   work=work)  # fmt: skip
        # After the write, and on a keyed retry's replay too: the deletion may be done and its purge never queued (the
        # first attempt's enqueue failed, or its answer was lost), so every answered deletion queues it (a purge is
        # idempotent: one of an agent already purged finds nothing).
        self._enqueue_purge(workspace_id, agent_id)
        return deleted
