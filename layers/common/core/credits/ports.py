"""The credits' storage interfaces: one ``Protocol`` per store its services use, holding only what they call.

The stores satisfy them structurally, without inheriting: mypy checks that where ``providers.py`` wires
them, and a test can hand a service a small fake that mypy checks too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

# Only for the type checker: importing the models here would load them into every function that
# imports a service (the read plane's functions never load the management models: tests/unit/test_cold_path.py).
if TYPE_CHECKING:
    from core.credits.records import BalanceRecord, HoldRecord, LedgerEntryRecord, Outcome
    from core.platform.kinds import RefType


class Ledger(Protocol):
    """The credit ledger: balances, holds and entries, each change one transaction (``LedgerStore``)."""

    def balance(self, account_id: str) -> BalanceRecord: ...
    def get_hold(self, account_id: str, ref_id: str) -> HoldRecord | None: ...
    def entries(
        self, account_id: str, *, ref_type: RefType | None, skip: int, take: int
    ) -> list[LedgerEntryRecord]: ...
    def expired_holds(self, now: str, limit: int = 100) -> list[HoldRecord]: ...
    def reserve(self, hold: HoldRecord) -> Outcome: ...
    def settle(self, hold: HoldRecord, charge: int | None = None, description: str | None = None) -> Outcome: ...
    def release(self, hold: HoldRecord) -> Outcome: ...
    def mark_streamed(self, account_id: str, ref_id: str) -> bool: ...
    def mark_exhausted(self, account_id: str, workspace_id: str, agent_id: str) -> bool: ...
