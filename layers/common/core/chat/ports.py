"""The chat's storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

# Only for the type checker: importing the models here would load them into every function that
# imports a service (the read plane's functions never load the management models: tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    pass


class Conversations(Protocol):
    """Stored chat turns of workspaces that keep them (``ConversationStore``)."""

    def save(self, workspace_id: str, turn: dict[str, Any]) -> None: ...
    def recent_turns(self, workspace_id: str, agent_id: str, client: str, thread_key: str) -> list[str]: ...
    def messages(self, turn_key: str) -> list[tuple[str, str]]: ...
