"""Billing usage: the hold → settle | release cycle, on the credit ledger.

Usage is billed in three steps so no work is ever done unpaid or charged twice:
``hold`` reserves the price before the work starts (402 if the account cannot cover it),
``settle`` turns the hold into one ledger entry once the work delivered, and ``release``
returns it if the work failed first. A hold that neither happens to (a crashed
container) expires, and ``sweep`` settles it if the work had delivered, else releases it.

The read plane's chat bills here, so this module loads the ledger's records only: the balance and history
endpoints, with the management plane's models, are ``credits.CreditReader`` on top of it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from core.credits.ports import Ledger
from core.credits.records import HoldRecord, HoldUsage, Outcome
from core.platform import observability
from core.platform.ids import iso
from core.platform.kinds import RefType

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SweepReport:
    settled: int
    released: int
    more: bool  # the batch was full: more expired holds may be waiting


class Billing:
    def __init__(
        self,
        ledger: Ledger,
        *,
        hold_seconds: int,
        clock: Callable[[], float] = time.time,
    ):
        self._ledger = ledger
        self._hold_seconds = hold_seconds
        self._clock = clock

    def hold(
        self, account_id: str, ref_type: RefType, ref_id: str, amount: int, description: str, *,
        usage: HoldUsage | None = None,
    ) -> HoldRecord:  # fmt: skip
        """Reserve ``amount`` for the work ``ref_id`` (``InsufficientCredits`` when available cannot cover it).

        ``usage``: whose usage the work is; its settlement, whoever makes it, counts one turn and the charge there.
        """
        now = self._clock()
        hold = HoldRecord(
            account_id=account_id, ref_id=ref_id, ref_type=ref_type, amount=amount, description=description,
            created_at=_iso(now), expires_at=_iso(now + self._hold_seconds), usage=usage,
        )  # fmt: skip
        self._ledger.reserve(hold)
        return hold

    def mark_delivered(self, hold: HoldRecord) -> bool:
        """The work delivers something: from now on an abandoned hold is charged, not released.

        False if the hold is gone (it expired and was released): the work must stop, unpaid.
        """
        return self._ledger.mark_streamed(hold.account_id, hold.ref_id, hold.book)

    def note_exhausted(self, account_id: str, workspace_id: str, agent_id: str) -> None:
        """A chat of ``workspace_id`` was refused for lack of credits: mark the balance exhausted (once until the
        next grant: ``credits.exhausted`` streams from the marker's appearance).

        Best effort, on the refusal's path: the visitor's answer is the 402 whatever happens here, so a failed write
        is logged and counted (metric ``ExhaustionMarkFailed``) and the next refusal tries again
        (docs/decisions.md, "Webhooks: what each path emits")."""
        try:
            if self._ledger.mark_exhausted(account_id, workspace_id, agent_id):
                observability.count("CreditsExhausted")
        except Exception:  # whatever failed, the refusal stands; the next refusal writes the marker
            logger.exception("marking credits exhausted failed", extra={"workspaceId": workspace_id})
            observability.count("ExhaustionMarkFailed")

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
            # the index lags; the item (in the hold's book) is the truth
            current = self._ledger.get_hold(hold.account_id, hold.ref_id, hold.book)
            if current is not None and not current.streamed:
                if self.release(current) is Outcome.APPLIED:
                    released += 1
                    continue
                # The release lost a race: the work delivered just now, or its own turn finished the hold.
                current = self._ledger.get_hold(hold.account_id, hold.ref_id, hold.book)
            if current is not None and current.streamed:
                settled += self.settle(current) is Outcome.APPLIED
        # A full batch means more may wait; one that changed nothing (index lag) must not spin the caller.
        return SweepReport(settled=settled, released=released, more=len(expired) >= batch and settled + released > 0)


def _iso(epoch_seconds: float) -> str:
    return iso(datetime.fromtimestamp(epoch_seconds, UTC))
