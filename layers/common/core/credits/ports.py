"""The storage interfaces services depend on: one ``Protocol`` per repository, holding only what services call.

A service is typed against these, never against a concrete repository, so a test can hand it a small
fake and mypy still checks that the fake has the right methods (no ``type: ignore``). The concrete
classes in ``core.repositories`` satisfy them structurally, without inheriting: mypy checks that where
``core.deps`` wires them in. Names are plural nouns (what is stored), used qualified (``ports.ApiKeys``),
so a signature reads as "something that stores API keys", not as one implementation. A service that
needs a small part of one (the read plane's key check: ``ApiKeyLookup``) names that part, so its fakes stay small.

To give a service a new storage call: add the method here with the repository's signature, then use it.
"""

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
