"""The writer's storage interfaces: one ``Protocol`` per store in ``core.repositories.authoring``, holding what the
authoring services call (as ``core.platform.ports`` does for the rest; records are imported for the type checker
only). The concrete stores satisfy them structurally; mypy checks that where ``core.deps.authoring`` wires them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.platform.transactions import Also
    from core.posts.records import PostRecord


class PostStore(Protocol):
    def get(self, agent_id: str, post_id: str) -> PostRecord | None: ...
    def rows(
        self, agent_id: str, *, published: bool, limit: int, after: str | None
    ) -> tuple[list[tuple[str, PostRecord]], bool]: ...
    def create(self, workspace_id: str, post: PostRecord, *, also: Also) -> None: ...
    def replace(self, workspace_id: str, old: PostRecord, new: PostRecord, *, also: Also) -> PostRecord: ...
    def delete(self, workspace_id: str, post: PostRecord, *, also: Also) -> None: ...
