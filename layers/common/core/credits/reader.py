"""Credits: the balance and history endpoints (management plane), over the billing cycle of ``billing``.

``CreditReader`` is a ``Billing`` that also answers the caller's balance and history; the read plane's chat
uses ``Billing`` itself, so it never loads the management models these answers are built from.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from core.credits.billing import Billing, SweepReport
from core.credits.models import CreditAmounts, CreditBalance, CreditHistory, CreditHistoryQuery, CreditLedgerEntry
from core.credits.ports import Ledger

__all__ = ["CreditReader", "SweepReport"]


class CreditReader(Billing):
    def __init__(
        self,
        ledger: Ledger,
        *,
        usd_cents_per_credit: int,
        hold_seconds: int,
        clock: Callable[[], float] = time.time,
    ):
        super().__init__(ledger, hold_seconds=hold_seconds, clock=clock)
        self._usd_cents = usd_cents_per_credit

    def balance(self, account_id: str) -> CreditBalance:
        record = self._ledger.balance(account_id)
        amounts = CreditAmounts(available=record.available, held=record.held, total=record.available + record.held)
        cents = CreditAmounts(**{name: value * self._usd_cents for name, value in amounts.model_dump().items()})
        return CreditBalance(balance=amounts, usd_cents=cents)

    def history(self, account_id: str, query: CreditHistoryQuery) -> CreditHistory:
        """One page, newest first; ``total`` counts every entry matching the filter (the books' counters). At most
        three round trips whatever the ledger's size: the numbered history (docs/ledger.md)."""
        page = self._ledger.history(account_id, ref_type=query.ref_type, skip=query.offset, take=query.limit)
        entries = [CreditLedgerEntry.from_record(record) for record in page.entries]
        return CreditHistory(entries=entries, total=page.total, limit=query.limit, offset=query.offset)
