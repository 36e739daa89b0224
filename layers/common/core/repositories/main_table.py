"""Key layout of the main (identity and workspaces) table. See docs/data-model.md."""

from __future__ import annotations


def user(user_id: str) -> dict[str, str]:
    return {"pk": f"USER#{user_id}", "sk": "USER"}


def workspace(workspace_id: str) -> dict[str, str]:
    return {"pk": f"WS#{workspace_id}", "sk": "WS"}


def member(workspace_id: str, user_id: str) -> dict[str, str]:
    return {"pk": f"WS#{workspace_id}", "sk": f"MEMBER#{user_id}"}


def brand(workspace_id: str, brand_id: str) -> dict[str, str]:
    return {"pk": f"WS#{workspace_id}", "sk": f"BRAND#{brand_id}"}


def workflow(workspace_id: str, workflow_id: str) -> dict[str, str]:
    return {"pk": f"WS#{workspace_id}", "sk": f"WORKFLOW#{workflow_id}"}


def agent(workspace_id: str, agent_id: str) -> dict[str, str]:
    return {"pk": f"WS#{workspace_id}", "sk": f"AGENT#{agent_id}"}


def posts_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#POSTS"


def post(agent_id: str, created_at: str, post_id: str) -> dict[str, str]:
    # createdAt first so a descending Query is the feed order; the id breaks ties.
    return {"pk": posts_partition(agent_id), "sk": f"POST#{created_at}#{post_id}"}


def items_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#ITEMS"


def item(agent_id: str, item_id: str) -> dict[str, str]:
    return {"pk": items_partition(agent_id), "sk": f"ITEM#{item_id}"}
