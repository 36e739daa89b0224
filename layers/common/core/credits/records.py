"""Ledger records: a balance per account, immutable entries, and outstanding holds. See docs/ledger.md."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from core.platform.kinds import RefType
from core.platform.records import Record


class BalanceRecord(Record):
    """The account's ``BALANCE`` item. ``entries`` counts ledger entries (for ``total`` without a scan)."""

    available: int = 0
    held: int = 0
    entries: int = 0
    entries_by_type: dict[str, int] = Field(default_factory=dict)
    shards: int = 0  # the account's shard books (docs/ledger.md, "Shards"); the sums above are over every book

    def entry_count(self, ref_type: RefType | None) -> int:
        return self.entries if ref_type is None else self.entries_by_type.get(ref_type, 0)


class HoldUsage(Record):
    """Whose usage a hold's work is (``GET …/usage``): its settlement counts one turn and its charge there.

    Carried on the hold, so whoever settles it (the turn itself or, later, the sweeper) counts the same day."""

    workspace_id: str
    day: str  # the UTC day the work started, YYYY-MM-DD (the read plane's clock: the day its request counted)
    key_id: str | None = None
    agent_id: str | None = None


class HoldRecord(Record):
    """Credits reserved for work in progress, keyed by the work's reference id."""

    account_id: str
    ref_id: str
    ref_type: RefType
    amount: int
    description: str
    created_at: str
    expires_at: str
    # Set once the work has delivered something: an expired hold that streamed is settled, not released.
    streamed: bool = False
    usage: HoldUsage | None = None  # None: the work counts as no key's or agent's usage
    # The book the hold was reserved in (0: the account's main book, k: its shard k), set by the reserve;
    # None on a record that never was (its book is then the one its reference maps to).
    book: int | None = None


class LedgerEntryRecord(Record):
    """An immutable ledger entry as stored. The API's ``CreditLedgerEntry`` is mapped from it by the credit
    service, so the table's layout and the wire shape can change apart."""

    id: str
    account_id: str
    amount_credits: int
    ref_type: RefType
    ref_id: str
    description: str
    created_at: str


class Outcome(StrEnum):
    """What a ledger write did. Anything but ``APPLIED`` changed nothing."""

    APPLIED = "applied"
    ALREADY_DONE = "already_done"  # the same reference was settled, released or granted before (a retry)
    NOTHING_HELD = "nothing_held"  # no hold under that reference
