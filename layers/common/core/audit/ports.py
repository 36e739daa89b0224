"""The writer's storage interfaces: one ``Protocol`` per store in ``core.repositories.authoring``, holding what the
authoring services call (as ``core.platform.ports`` does for the rest; records are imported for the type checker
only). The concrete stores satisfy them structurally; mypy checks that where ``core.deps.authoring`` wires them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from core.audit.records import AuditRecord
    from core.platform.transactions import Also


class AuditStore(Protocol):
    def entry(self, record: AuditRecord) -> dict[str, Any]: ...
    def commit(self, also: Also) -> None: ...
