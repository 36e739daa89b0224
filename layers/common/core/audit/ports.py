"""The audit's storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from core.audit.records import AuditRecord
    from core.platform.transactions import Also


class AuditEntries(Protocol):
    def entry(self, record: AuditRecord) -> dict[str, Any]: ...
    def commit(self, also: Also) -> None: ...
