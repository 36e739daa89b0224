"""The chat's storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

# Only for the type checker: importing the models here would load them into every function that
# imports a service (the read plane's functions never load the management models: tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    from core.platform.transactions import Also, Transaction


class Conversations(Protocol):
    """Stored chat turns of workspaces that keep them (``ConversationStore``)."""

    def stage(
        self, tx: Transaction, workspace_id: str, turn: dict[str, Any], retention_days: int | None
    ) -> Transaction: ...
    def recent(self, agent_id: str, client: str, thread_key: str, first_day: str) -> list[tuple[str, str]]: ...


class ThreadReads(Protocol):
    """Stored conversations as the management plane reads them (``ThreadStore``)."""

    def newest(self, agent_id: str, limit: int, *, lower: str | None, upper: str | None) -> list[dict[str, Any]]: ...
    def visitor_threads(self, agent_id: str, client: str) -> list[dict[str, Any]]: ...
    def turns(self, agent_id: str, client: str, thread_key: str) -> list[dict[str, Any]]: ...


class ThreadErasure(Protocol):
    """What a visitor's erasure reads and deletes (``ThreadStore``)."""

    def visitor_keys(self, agent_id: str, client: str) -> list[dict[str, Any]]: ...
    def visitor_ratings(self, agent_id: str, client: str) -> list[dict[str, Any]]: ...
    def forget_asker(self, key: dict[str, Any], client: str) -> bool: ...
    def delete(self, item_keys: list[dict[str, Any]], also: Also) -> None: ...


class TurnLogs(Protocol):
    """A delivered turn's receipt, counts and (when stored) the turn itself, in one write (``TurnLogStore``)."""

    def record(self, actions: Transaction) -> None: ...
