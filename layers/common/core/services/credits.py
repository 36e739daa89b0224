"""Credits: the balance and history endpoints, and the hold → settle | release cycle that bills usage.

Usage is billed in three steps so no work is ever done unpaid or charged twice:
``hold`` reserves the price before the work starts (402 if the account cannot cover it),
``settle`` turns the hold into one ledger entry once the work delivered, and ``release``
returns it if the work failed first. A hold that neither happens to (a crashed
container) expires, and ``sweep`` settles it if the work had delivered, else releases it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from .. import observability
from ..ids import iso
from ..models.kinds import RefType
from ..models.ledger import HoldRecord, LedgerEntryRecord, Outcome
from ..models.management import (
    CreditAmounts,
    CreditBalance,
    CreditHistory,
    CreditHistoryQuery,
    CreditLedgerEntry,
)
from . import ports, together


@dataclass(frozen=True)
class SweepReport:
    settled: int
    released: int
    more: bool  # the batch was full: more expired holds may be waiting


class CreditService:
    def __init__(
        self,
        ledger: ports.Ledger,
        *,
        usd_cents_per_credit: int,
        hold_seconds: int,
        clock: Callable[[], float] = time.time,
    ):
        self._ledger = ledger
        self._usd_cents = usd_cents_per_credit
        self._hold_seconds = hold_seconds
        self._clock = clock

    # --- endpoints

    def balance(self, account_id: str) -> CreditBalance:
        record = self._ledger.balance(account_id)
        amounts = CreditAmounts(available=record.available, held=record.held, total=record.available + record.held)
        cents = CreditAmounts(**{name: value * self._usd_cents for name, value in amounts.model_dump().items()})
        return CreditBalance(balance=amounts, usd_cents=cents)

    def history(self, account_id: str, query: CreditHistoryQuery) -> CreditHistory:
        """One page, newest first; ``total`` counts every entry matching the filter (kept on the balance item)."""
        balance, page = together.run(
            lambda: self._ledger.balance(account_id),
            lambda: self._ledger.entries(account_id, ref_type=query.ref_type, skip=query.offset, take=query.limit),
        )
        total = balance.result().entry_count(query.ref_type)
        records = page.result() if query.offset < total else []  # read together: a page past the end is dropped
        entries = [_wire_entry(record) for record in records]
        return CreditHistory(entries=entries, total=total, limit=query.limit, offset=query.offset)

    # --- billing

    def hold(self, account_id: str, ref_type: RefType, ref_id: str, amount: int, description: str) -> HoldRecord:
        """Reserve ``amount`` for the work ``ref_id`` (``InsufficientCredits`` when available cannot cover it)."""
        now = self._clock()
        hold = HoldRecord(
            account_id=account_id, ref_id=ref_id, ref_type=ref_type, amount=amount, description=description,
            created_at=_iso(now), expires_at=_iso(now + self._hold_seconds),
        )  # fmt: skip
        self._ledger.reserve(hold)
        return hold

    def mark_delivered(self, hold: HoldRecord) -> bool:
        """The work delivers something: from now on an abandoned hold is charged, not released.

        False if the hold is gone (it expired and was released): the work must stop, unpaid.
        """
        return self._ledger.mark_streamed(hold.account_id, hold.ref_id)

    def settle(self, hold: HoldRecord, charge: int | None = None) -> Outcome:
        outcome = self._ledger.settle(hold, charge)
        if outcome is Outcome.APPLIED:
            observability.count("CreditsCharged", hold.amount if charge is None else charge)
        return outcome

    def release(self, hold: HoldRecord) -> Outcome:
        outcome = self._ledger.release(hold)
        if outcome is Outcome.APPLIED:
            observability.count("HoldsReleased")
        return outcome

    def sweep(self, batch: int = 100) -> SweepReport:
        """Finish every expired hold: settle the ones whose work delivered, release the rest."""
        settled = released = 0
        expired = self._ledger.expired_holds(_iso(self._clock()), limit=batch)
        for hold in expired:
            current = self._ledger.get_hold(hold.account_id, hold.ref_id)  # the index lags; the item is the truth
            if current is not None and not current.streamed:
                if self.release(current) is Outcome.APPLIED:
                    released += 1
                    continue
                # The release lost a race: the work delivered just now, or its own turn finished the hold.
                current = self._ledger.get_hold(hold.account_id, hold.ref_id)
            if current is not None and current.streamed:
                settled += self.settle(current) is Outcome.APPLIED
        # A full batch means more may wait; one that changed nothing (index lag) must not spin the caller.
        return SweepReport(settled=settled, released=released, more=len(expired) >= batch and settled + released > 0)


def _wire_entry(record: LedgerEntryRecord) -> CreditLedgerEntry:
    """The API's view of a stored entry (today field for field: the two may differ, the wire must not change)."""
    return CreditLedgerEntry.model_validate(record.model_dump())


def _iso(epoch_seconds: float) -> str:
    return iso(datetime.fromtimestamp(epoch_seconds, UTC))
