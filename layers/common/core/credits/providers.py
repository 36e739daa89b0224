"""The credits' providers: billing (chat charges, the hold sweeper) and the portal's balance and history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container
from core.platform.settings import get_settings

if TYPE_CHECKING:  # each provider imports what it builds: a function loads the modules it uses, no others
    from core.credits.billing import Billing
    from core.credits.history_store import HistoryStore
    from core.credits.reader import CreditReader


@per_container
def billing() -> Billing:
    from core.credits.billing import Billing
    from core.credits.store import LedgerStore

    settings = get_settings()
    return Billing(LedgerStore(aws.dynamodb(), settings.ledger_table), hold_seconds=settings.hold_seconds)


@per_container
def reader() -> CreditReader:
    """The caller's balance and history (and, beneath them, the billing cycle of ``billing()``)."""
    from core.credits.reader import CreditReader
    from core.credits.store import LedgerStore

    settings = get_settings()
    return CreditReader(
        LedgerStore(aws.dynamodb(), settings.ledger_table),
        usd_cents_per_credit=settings.credit_usd_cents,
        hold_seconds=settings.hold_seconds,
    )


@per_container
def history() -> HistoryStore:
    """The history numberer (``functions/workers/ledger_history``, ``python -m ops number-history``)."""
    from core.credits.history_store import HistoryStore

    return HistoryStore(aws.dynamodb(), get_settings().ledger_table)
