"""Whether an agent's posts, their filter copies and its items agree with each other (docs/data-model.md, "MainTable
item layout"), read straight from the table: what a fault or a race may not leave half-written.

For every canonical post (``ID#<postId>`` in ``AGENT#<id>#POSTS``): exactly one row, ``POST#<createdAt>#<id>`` when
published or ``DRAFT#…`` when not, and, when published, exactly its copies in ``AGENT#<id>#FILTERS``
(``main_table.feed_filter_copies``), each with the canonical item's attributes (``version`` included); no row or copy
that no canonical item explains. Every item once, under ``ITEM#`` when ``active`` and ``INACTIVE#`` when not. The
agent's ``postCount`` and ``itemCount`` (its counters item's, plus any an agent older than it carries) are the numbers
of canonical posts and of items; an agent that no longer exists (deleted, purged) leaves nothing in these partitions,
nor a counters item.

``assert_agent_content(dynamodb, agent_id)`` raises an ``AssertionError`` listing every disagreement, one per line;
``agent_problems`` returns them. Reads are consistent Queries, so call it when no write of the agent is in flight.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.platform import main_table as keys
from core.platform.agent_counts_store import counted as counted_agent
from core.platform.dynamo import from_item, query_all, to_item

KEYS = ("pk", "sk")
CANONICAL = "ID#"


@dataclass(frozen=True)
class AgentContent:
    """What the table holds for one agent, by sort key: its posts partition, filter copies and items (decoded)."""

    agent_id: str
    workspace_id: str | None
    agent: dict[str, Any] | None  # the agent's item; None when it does not exist
    posts: dict[str, dict[str, Any]]
    copies: dict[str, dict[str, Any]]
    items: dict[str, dict[str, Any]]
    counts: dict[str, Any] | None = None  # the agent's counters item (``COUNTS#<agentId>``); None when absent

    @property
    def canonical(self) -> dict[str, dict[str, Any]]:
        """The canonical post items by post id."""
        return {sk.removeprefix(CANONICAL): post for sk, post in self.posts.items() if sk.startswith(CANONICAL)}


def _partition(dynamodb: Any, table: str, pk: str) -> dict[str, dict[str, Any]]:
    rows = query_all(dynamodb, {
        "TableName": table, "ConsistentRead": True, "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": to_item({":pk": pk}),
    })  # fmt: skip
    return {row["sk"]: row for row in rows}


def _workspace_of(dynamodb: Any, table: str, agent_id: str) -> str | None:
    """The workspace whose partition holds the agent (a Scan: tests only; pass ``workspace_id`` when it is known)."""
    pages = dynamodb.get_paginator("scan").paginate(
        TableName=table, ConsistentRead=True, ProjectionExpression="pk",
        FilterExpression="sk = :sk AND begins_with(pk, :ws)",
        ExpressionAttributeValues=to_item({":sk": keys.agent("", agent_id)["sk"], ":ws": "WS#"}),
    )  # fmt: skip
    found = [from_item(item)["pk"].removeprefix("WS#") for page in pages for item in page.get("Items", [])]
    assert len(found) <= 1, f"agent {agent_id} is in several workspaces: {found}"
    return found[0] if found else None


def read_agent(
    dynamodb: Any, agent_id: str, *, workspace_id: str | None = None, table: str | None = None
) -> AgentContent:
    """The agent's item and partitions; ``table`` defaults to the settings' main table."""
    if table is None:
        from core.platform.settings import get_settings

        table = get_settings().main_table
    workspace_id = workspace_id or _workspace_of(dynamodb, table, agent_id)
    agent = counts = None
    if workspace_id is not None:
        found = dynamodb.get_item(TableName=table, Key=to_item(keys.agent(workspace_id, agent_id)), ConsistentRead=True)
        agent = from_item(found["Item"]) if "Item" in found else None
        found = dynamodb.get_item(TableName=table, Key=to_item(keys.agent_counts(workspace_id, agent_id)),
                                  ConsistentRead=True)  # fmt: skip
        counts = from_item(found["Item"]) if "Item" in found else None
    return AgentContent(
        agent_id, workspace_id, agent,
        posts=_partition(dynamodb, table, keys.posts_partition(agent_id)),
        copies=_partition(dynamodb, table, keys.feed_filters_partition(agent_id)),
        items=_partition(dynamodb, table, keys.items_partition(agent_id)),
        counts=counts,
    )  # fmt: skip


def _differences(found: Mapping[str, Any], wanted: Mapping[str, Any]) -> str:
    """``name: <found> (canonical <wanted>)`` for each attribute that differs, key attributes aside."""
    names = sorted((set(found) | set(wanted)) - set(KEYS))
    missing = object()
    return "; ".join(
        f"{name}: {found.get(name, '<absent>')!r} (canonical {wanted.get(name, '<absent>')!r})"
        for name in names
        if found.get(name, missing) != wanted.get(name, missing)
    )


def _expected_places(agent_id: str, post: Mapping[str, Any]) -> tuple[str, list[str]]:
    """(the row's sort key, the copies' sort keys) of a canonical post, as its attributes say."""
    published = post.get("published", True)
    row = keys.post(agent_id, post["createdAt"], post["id"], published=published)["sk"]
    if not published:
        return row, []
    copies = keys.feed_filter_copies(agent_id, post["createdAt"], post["id"], post.get("channels") or [],
                                     post.get("category"))  # fmt: skip
    return row, [copy["sk"] for copy in copies]


def _post_problems(content: AgentContent) -> list[str]:
    problems: list[str] = []
    rows: dict[str, str] = {}  # sort key each canonical post puts its row (and copies) at -> the post id
    copies: dict[str, str] = {}
    for post_id, post in sorted(content.canonical.items()):
        if post.get("id") != post_id or post.get("agentId") != content.agent_id:
            problems.append(f"canonical ID#{post_id}: holds id {post.get('id')!r}, agentId {post.get('agentId')!r}")
            continue
        row, its_copies = _expected_places(content.agent_id, post)
        rows[row] = post_id
        copies |= dict.fromkeys(its_copies, post_id)
    for kind, found, expected in (("row", content.posts, rows), ("copy", content.copies, copies)):
        for sk, post_id in sorted(expected.items()):
            canonical = content.canonical[post_id]
            if sk not in found:
                problems.append(f"post {post_id}: missing {kind} {sk}")
            elif diff := _differences(found[sk], canonical):
                problems.append(f"post {post_id}: {kind} {sk} differs: {diff}")
        for sk in sorted(set(found) - set(expected)):
            if kind == "row" and sk.startswith(CANONICAL):
                continue
            problems.append(f"stray {kind} {sk}: {_stray(content, sk)}")
    return problems


def _stray(content: AgentContent, sk: str) -> str:
    """Why a row or copy is unexplained: its post has no canonical item, or the canonical item puts it elsewhere."""
    if not sk.startswith((keys.PUBLISHED_POST, keys.DRAFT_POST, "CHANNEL#", "CATEGORY#", "BOTH#")):
        return "not a post's row or copy"
    post_id = sk.rsplit("#", 1)[-1]
    canonical = content.canonical.get(post_id)
    if canonical is None:
        return f"post {post_id} has no canonical item"
    state = "published" if canonical.get("published", True) else "a draft"
    return f"post {post_id} is {state}, createdAt {canonical.get('createdAt')}, channels " \
           f"{canonical.get('channels')}, category {canonical.get('category')!r}"  # fmt: skip


def _item_problems(content: AgentContent) -> tuple[list[str], int]:
    """(problems, the number of distinct items)."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    for sk, item in sorted(content.items.items()):
        active = sk.startswith(keys.ACTIVE_ITEM)
        if not active and not sk.startswith(keys.INACTIVE_ITEM):
            problems.append(f"stray item {sk}: not an item's key")
            continue
        item_id = sk.removeprefix(keys.ACTIVE_ITEM if active else keys.INACTIVE_ITEM)
        if item.get("id") != item_id:
            problems.append(f"item {sk}: holds id {item.get('id')!r}")
        if item.get("active", True) != active:
            problems.append(f"item {item_id}: under {sk} but active is {item.get('active')!r}")
        if item_id in seen:
            problems.append(f"item {item_id}: stored twice, under {seen[item_id]} and {sk}")
        seen[item_id] = sk
    return problems, len(seen)


def agent_problems(content: AgentContent) -> list[str]:
    """Every disagreement in ``content``, one readable line each (empty: consistent)."""
    problems = _post_problems(content)
    item_problems, items = _item_problems(content)
    problems += item_problems
    posts = len(content.canonical)
    if content.agent is None:
        if content.counts is not None:
            problems.append("the agent does not exist, yet its counters item does")
        left = len(content.posts) + len(content.copies) + len(content.items)
        if left:
            problems.append(
                f"the agent does not exist, yet its partitions hold {left} items "
                f"({len(content.posts)} posts, {len(content.copies)} copies, {len(content.items)} items)"
            )
        return problems
    for counter, counted, what in (("postCount", posts, "canonical posts"), ("itemCount", items, "items")):
        stored = counted_agent(content.agent, content.counts).get(counter, 0)
        if stored != counted:
            problems.append(f"agent {counter} is {stored}, but it has {counted} {what}")
    return problems


def describe(content: AgentContent, problems: list[str]) -> str:
    published = sum(bool(p.get("published", True)) for p in content.canonical.values())
    head = (f"agent {content.agent_id} (workspace {content.workspace_id}, "
            f"{'exists' if content.agent is not None else 'absent'}): {len(content.canonical)} posts "
            f"({published} published), {len(content.copies)} copies, {len(content.items)} items; "
            f"{len(problems)} problems")  # fmt: skip
    return "\n".join([head, *(f"  - {p}" for p in problems)])


def assert_agent_content(
    dynamodb: Any, agent_id: str, *, workspace_id: str | None = None, table: str | None = None
) -> AgentContent:
    """Read the agent and assert that its posts, copies, items and counters agree; the content read, if they do."""
    content = read_agent(dynamodb, agent_id, workspace_id=workspace_id, table=table)
    problems = agent_problems(content)
    assert not problems, describe(content, problems)
    return content
