"""What the workspace holds of one agent, read through the portal's GETs (several at a time): what a plan is
compared against, and what an export writes."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .._generated.models_portal import Agent, AgentItem, Answer, Brand, Post, StoredObject, WorkspacePlan
from ..portal import Portal

PAGE = 200  # the largest page the listings give
ANSWERS_PAGE = 100  # the answers' largest page
T = TypeVar("T")


def folder(agent_id: str) -> str:
    """The agent's folder in the workspace: its files are objects ``projects/<agentId>/<bundle path>``."""
    return f"projects/{agent_id}/"


@dataclass
class AgentState:
    """An agent as the service holds it; ``agent`` None: there is no agent of that slug (nothing else is read)."""

    agent: Agent | None
    brands: list[Brand]
    wrap: dict[str, Any] | None = None
    site: dict[str, Any] | None = None
    suggestions: Any = None
    objects: dict[str, StoredObject] = field(default_factory=dict)  # by path in the agent's folder
    posts: list[Post] = field(default_factory=list)  # drafts and published
    items: list[AgentItem] = field(default_factory=list)  # active and inactive
    answers: list[Answer] = field(default_factory=list)  # the owner's answers, newest first
    # The workspace owner's plan, whose object size and storage bind the uploads (None: not read, nothing checked).
    plan: WorkspacePlan | None = None

    @property
    def default_brand(self) -> Brand | None:
        return next((brand for brand in self.brands if brand.is_default), None)


def read_state(portal: Portal, workspace_id: str, slug: str) -> AgentState:
    with ThreadPoolExecutor(max_workers=6) as pool:
        agents = pool.submit(portal.every_agent, workspace_id)
        brands = pool.submit(portal.every_brand, workspace_id)
        agent = next((agent for agent in agents.result() if agent.slug == slug), None)
        state = AgentState(agent, brands.result())
        if agent is None:
            return state
        reads: dict[str, Callable[[], Any]] = {
            "wrap": lambda: portal.get_wrap(workspace_id, agent.id).wrap,
            "site": lambda: portal.get_site(workspace_id, agent.id).site,
            "suggestions": lambda: _suggestions(portal, workspace_id, agent.active_workflow_id),
            "objects": lambda: all_objects(portal, workspace_id, agent.id),
            "posts": lambda: all_posts(portal, workspace_id, agent.id),
            "items": lambda: all_items(portal, workspace_id, agent.id),
            "answers": lambda: all_answers(portal, workspace_id, agent.id),
        }
        for name, future in [(name, pool.submit(read)) for name, read in reads.items()]:
            setattr(state, name, future.result())
    return state


def _suggestions(portal: Portal, workspace_id: str, workflow_id: str) -> Any:
    workflows = portal.list_workflows(workspace_id).workflows
    return next((workflow.suggestions for workflow in workflows if workflow.id == workflow_id), None)


def all_objects(portal: Portal, workspace_id: str, agent_id: str) -> dict[str, StoredObject]:
    prefix = folder(agent_id)
    pages = _pages(lambda cursor: portal.list_objects(workspace_id, prefix=prefix, limit=PAGE, cursor=cursor))
    return {stored.path.removeprefix(prefix): stored for page in pages for stored in page.objects}


def all_posts(portal: Portal, workspace_id: str, agent_id: str) -> list[Post]:
    pages = _pages(lambda cursor: portal.list_posts(workspace_id, agent_id, limit=PAGE, cursor=cursor))
    return [post for page in pages for post in page.posts]


def all_items(portal: Portal, workspace_id: str, agent_id: str) -> list[AgentItem]:
    """Every item, active or not, in the listing's order (folder, order, id): pages since issue 43."""
    pages = _pages(lambda cursor: portal.list_items(workspace_id, agent_id, limit=PAGE, cursor=cursor))
    return [item for page in pages for item in page.items]


def all_answers(portal: Portal, workspace_id: str, agent_id: str) -> list[Answer]:
    pages = _pages(lambda cursor: portal.list_answers(workspace_id, agent_id, limit=ANSWERS_PAGE, cursor=cursor))
    return [answer for page in pages for answer in page.answers]


def _pages(read: Callable[[str | None], T]) -> list[T]:  # noqa: UP047 - the client runs on Python 3.11, before type parameters
    """Every page of a listing, following ``nextCursor``."""
    pages, cursor = [], None
    while True:
        page = read(cursor)
        pages.append(page)
        cursor = page.next_cursor  # type: ignore[attr-defined]
        if not cursor:
            return pages
