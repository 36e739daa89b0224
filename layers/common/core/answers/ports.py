"""The answers' storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.answers.records import AnswerRecord, TurnPrompt
    from core.platform.transactions import Also


class AnswerReader(Protocol):
    def get(self, agent_id: str, answer_id: str) -> AnswerRecord | None: ...
    def newest(self, agent_id: str, limit: int, after: str | None) -> list[AnswerRecord]: ...
    def receipt(self, agent_id: str, turn_id: str) -> TurnPrompt | None: ...


class AnswerWriter(Protocol):
    def create(self, workspace_id: str, answer: AnswerRecord, *, also: Also) -> None: ...
    def replace(self, workspace_id: str, old: AnswerRecord, new: AnswerRecord, *, also: Also) -> AnswerRecord: ...
    def delete(self, workspace_id: str, answer: AnswerRecord, *, also: Also) -> None: ...
