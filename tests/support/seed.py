"""Small builders of test data, written by the code production writes with (so tests share its storage layout).

Data with a production create path goes through it: users through ``UserStore.create`` (sign-in),
workspaces through ``create_workspace`` (the portal's create: slug claim, the owner's counted membership
and the default brand, in the repository's transaction; so a seeded owner meets the plan limit as a
signed-up one does), API keys as mint builds and stores them (``key_record``, ``ApiKeyStore.put``), and
workflows, agents, posts and items through the writer's stores (``core.repositories.authoring``: the same
transactions the authoring endpoints commit, counters and filter copies included). The stores are used
without the services' checks, so a test may seed what no request could make: fixed ids and times, media
keys that name no object, documents the read plane must survive. Members other than the owner are
``WorkspaceStore.put_member`` (no endpoint invites members yet).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from core.agents.records import AgentRecord
from core.agents.write_store import AgentStore
from core.brands.records import default_brand
from core.identity.records import UserRecord
from core.identity.store import UserStore
from core.items.records import ItemRecord
from core.items.write_store import ItemStore
from core.keys.admin import key_record
from core.keys.key_format import generate
from core.keys.store import ApiKeyStore
from core.platform import main_table as keys
from core.platform.dynamo import batch_put
from core.platform.ids import new_id, now_iso
from core.platform.settings import get_settings
from core.platform.transactions import Also
from core.posts.records import PostRecord
from core.posts.write_store import PostStore
from core.workflows.records import WorkflowRecord
from core.workflows.write_store import WorkflowStore
from core.workspaces.create import create_workspace
from core.workspaces.providers import plan_of
from core.workspaces.records import WorkspaceRecord
from core.workspaces.store import WorkspaceStore


def stamp(n: int) -> str:
    """A distinct, ordered RFC 3339 timestamp: ``stamp(1) < stamp(2)``."""
    return f"2026-01-{1 + n // 86400:02d}T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"


AGENTS_PER_SEEDED_WORKSPACE = 1000  # seeds make what tests need, not what a plan allows (agent creation tests it)


@dataclass
class Seeder:
    dynamodb: Any
    created: dict[str, Any] = field(default_factory=dict)
    workspace_of: dict[str, str] = field(default_factory=dict)  # agent id -> workspace id, for its posts and items

    @property
    def _main(self) -> tuple[Any, str]:
        return self.dynamodb, get_settings().main_table

    @property
    def _workspaces(self) -> WorkspaceStore:
        return WorkspaceStore(self.dynamodb, get_settings().main_table)

    def user(self, email: str, *, plan: str = "free", user_id: str | None = None) -> UserRecord:
        """A user as sign-in makes one (a taken e-mail gives back its owner, as sign-in does)."""
        user = UserRecord(
            id=user_id or new_id("usr"),
            email=email,
            name=email.split("@", maxsplit=1)[0],
            plan=plan,
            created_at=now_iso(),
        )
        return UserStore(self.dynamodb, get_settings().main_table).create(user)

    def workspace(self, owner: UserRecord, name: str = "Acme", *, workspace_id: str | None = None) -> WorkspaceRecord:
        """A workspace as the portal creates it, counted against ``owner``'s plan (``PlanLimitReached`` past it)."""
        limit = plan_of(owner.plan).workspaces
        return create_workspace(self._workspaces, default_brand, owner.id, name, limit, workspace_id=workspace_id)

    def api_key(
        self,
        workspace_id: str,
        *,
        raw: str | None = None,
        rate_limit: int | None = None,
        revoked: bool = False,
        key_id: str | None = None,
    ) -> str:
        """A key as mint records it (``key_record``); ``revoked``: stored already revoked."""
        raw = raw or generate()
        record = key_record(raw, workspace_id, "test", rate_limit=rate_limit, key_id=key_id)
        if revoked:
            record = record.model_copy(update={"revoked_at": now_iso()})
        ApiKeyStore(self.dynamodb, get_settings().api_keys_table).put(record)
        return raw

    def agent(
        self,
        ws: WorkspaceRecord,
        *,
        agent_id: str | None = None,
        slug: str = "helper",
        wrap: Any = None,
        site: Any = None,
        suggestions: Any = None,
        brand_id: str | None = None,
    ) -> AgentRecord:
        """An agent of ``ws`` on ``brand_id`` (a brand of ``ws``; default: its default brand)."""
        now = now_iso()
        workflow = WorkflowRecord(
            id=new_id("wf"),
            workspace_id=ws.id,
            name="Default",
            suggestions_json=None if suggestions is None else _text(suggestions),
            created_at=now,
            updated_at=now,
        )
        agent = AgentRecord(
            id=agent_id or new_id("prj"),
            workspace_id=ws.id,
            slug=slug,
            name=slug.title(),
            brand_id=brand_id or ws.default_brand_id,
            active_workflow_id=workflow.id,
            wrap_json=None if wrap is None else _text(wrap),
            site_json=None if site is None else _text(site),
            created_at=now,
            updated_at=now,
        )
        AgentStore(*self._main).create(agent, new_workflow=workflow, limit=AGENTS_PER_SEEDED_WORKSPACE, also=Also())
        self.workspace_of[agent.id] = ws.id
        return agent

    def workflow(
        self, ws: WorkspaceRecord, *, suggestions: Any = None, workflow_id: str | None = None
    ) -> WorkflowRecord:
        """A workflow of ``ws`` (not made any agent's active one)."""
        now = now_iso()
        workflow = WorkflowRecord(
            id=workflow_id or new_id("wf"),
            workspace_id=ws.id,
            name="Extra",
            suggestions_json=None if suggestions is None else _text(suggestions),
            created_at=now,
            updated_at=now,
        )
        WorkflowStore(*self._main).create(workflow, also=Also())
        return workflow

    def activate(self, agent: AgentRecord, workflow_id: str) -> AgentRecord:
        """Point ``agent`` at another workflow, which need not exist: a state no request can make (the agent's
        update checks the workflow), written as the raw item, for the read plane to survive."""
        updated = agent.model_copy(update={"active_workflow_id": workflow_id})
        batch_put(
            self.dynamodb, get_settings().main_table, [keys.agent(agent.workspace_id, agent.id) | updated.attributes()]
        )
        return updated

    def posts(self, agent_id: str, count: int, **fields: Any) -> list[PostRecord]:
        """``count`` posts with ``createdAt`` ascending by index; ``fields`` may be callables of the index."""
        posts = []
        for n in range(count):
            values = {k: (v(n) if callable(v) else v) for k, v in fields.items()}
            posts.append(
                PostRecord.model_validate(
                    {
                        "id": f"post_{n:05d}",
                        "agentId": agent_id,
                        "key": f"media/{n}.jpg",
                        "kind": "image",
                        "createdAt": stamp(n),
                        "channels": ["instagram"],
                    }
                    | values
                )
            )
        store, workspace_id = PostStore(*self._main), self._workspace_of(agent_id)
        for post in posts:
            store.create(workspace_id, post, also=Also())
        return posts

    def items(self, agent_id: str, items: list[dict[str, Any]]) -> list[ItemRecord]:
        records = [
            ItemRecord.model_validate(
                {
                    "id": f"item_{n:03d}",
                    "agentId": agent_id,
                    "name": f"Item {n}",
                    "kind": "document",
                    "r2Key": f"assets/{n}.pdf",
                    "mimeType": "application/pdf",
                    "size": 100 + n,
                    "updatedAt": stamp(n),
                }
                | item
            )
            for n, item in enumerate(items)
        ]
        store, workspace_id = ItemStore(*self._main), self._workspace_of(agent_id)
        for record in records:
            store.create(workspace_id, record, also=Also())
        return records

    def _workspace_of(self, agent_id: str) -> str:
        assert agent_id in self.workspace_of, f"{agent_id} was not seeded by this Seeder (seed.agent)"
        return self.workspace_of[agent_id]


def _text(document: Any) -> str:
    return document if isinstance(document, str) else json.dumps(document)
