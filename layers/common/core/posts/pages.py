"""Paging an agent's posts for its author: newest first over its two ranges (published rows, draft rows).

Each range is read from just after the last row the previous page took from it, ``limit`` rows at most, both
reads beside the access check; the page is the newest ``limit`` of what came back. The cursor says where each
range stands (its last row taken, or that it is done), so a post is listed once however the two interleave.
It is opaque to clients (base64url JSON) and bound to the listing's ``status``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from core.platform import cursors, together
from core.platform import main_table as keys
from core.platform.errors import ValidationFailed
from core.posts.records import PostRecord
from core.posts.writer_models import Post, PostPage, PostQuery

Rows = tuple[list[tuple[str, PostRecord]], bool]  # (sort key, post) newest first, and whether more may follow
Position = dict[str, Any]  # {"after": sort key | None, "done": bool}


def _ranges(status: str | None) -> list[bool]:
    return [published for published in (True, False) if status in (None, "published" if published else "draft")]


def _prefix(published: bool) -> str:
    return keys.PUBLISHED_POST if published else keys.DRAFT_POST


def decode(cursor: str | None, status: str | None) -> dict[bool, Position]:
    start = {published: {"after": None, "done": False} for published in _ranges(status)}
    if cursor is None:
        return start
    state_text = cursors.decode(cursor)
    try:
        state = json.loads(state_text)
        positions = {published: state["ranges"][_prefix(published)] for published in start}
        valid = state["status"] == (status or "") and all(
            isinstance(p["done"], bool) and (p["after"] is None or str(p["after"]).startswith(_prefix(published)))
            for published, p in positions.items()
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ValidationFailed(cursors.BAD_CURSOR) from exc
    if not valid:
        raise ValidationFailed(cursors.BAD_CURSOR)
    return positions


def encode(positions: dict[bool, Position], status: str | None) -> str | None:
    if all(p["done"] for p in positions.values()):
        return None
    state = {"status": status or "", "ranges": {_prefix(published): p for published, p in positions.items()}}
    return cursors.encode(json.dumps(state, separators=(",", ":")))


def merged_page(
    check: Callable[[], Any],
    read: Callable[[bool, str | None], Rows],
    query: PostQuery,
    view: Callable[[PostRecord], Post],
) -> PostPage:
    positions = decode(query.cursor, query.status)
    open_ranges = [published for published, p in positions.items() if not p["done"]]
    answers = together.run(check, *[lambda p=published: read(p, positions[p]["after"]) for published in open_ranges])
    answers[0].result()  # 404 before anything read beside it is used
    found = {published: answer.result() for published, answer in zip(open_ranges, answers[1:], strict=True)}
    rows = [(post.created_at, post.id, published, sk, post) for published, (page, _) in found.items()
            for sk, post in page]  # fmt: skip
    taken = sorted(rows, key=lambda row: (row[0], row[1]), reverse=True)[: query.limit]
    for published, (page, more) in found.items():
        mine = [row[3] for row in taken if row[2] is published]
        position = positions[published]
        if mine:
            position["after"] = mine[-1]
        position["done"] = not more and len(mine) == len(page)
    return PostPage(posts=[view(row[4]) for row in taken], next_cursor=encode(positions, query.status))
