"""Where events go: the workspaces of one batch, read once, and the ledger's account changes routed to the
workspaces the account owns.

A ledger item names an account (``ACCT#<userId>``), never a workspace: ``credits.granted`` goes to every workspace
the account owns, ``credits.low`` to each whose ``lowCreditsThreshold`` T the account's total crossed (old total
>= T > new total: once per crossing). ``route`` is pure; ``Workspaces`` does the reads, each at most once a batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.events import catalogue as types
from core.events.records import AccountChange, Event, event_id
from core.events.store import EventStore


@dataclass(frozen=True)
class Owned:
    workspace_id: str
    threshold: int | None  # lowCreditsThreshold: None, never low


def route(change: AccountChange, owned: Sequence[Owned]) -> list[Event]:
    """The events ``change`` means for the workspaces ``owned`` by its account."""
    found = []
    for workspace in owned:
        data = dict(change.data)
        if change.type == types.CREDITS_LOW:
            threshold = workspace.threshold
            if threshold is None or not change.old_total >= threshold > change.new_total:
                continue
            data["threshold"] = threshold
        eid = event_id(change.source, change.type, workspace.workspace_id)
        found.append(Event(eid, change.type, workspace.workspace_id, change.timestamp, data))
    return found


class Workspaces:
    """One batch's reads of workspaces (made for each batch: a retried batch reads again)."""

    def __init__(self, store: EventStore):
        self._store = store
        self._items: dict[str, dict[str, Any] | None] = {}
        self._owned: dict[str, list[Owned]] = {}

    def item(self, workspace_id: str) -> dict[str, Any] | None:
        """The workspace's item; None when it is gone (deleted, purging): its events are dropped."""
        if workspace_id not in self._items:
            self._items[workspace_id] = self._store.workspace(workspace_id)
        return self._items[workspace_id]

    def owned(self, account_id: str) -> list[Owned]:
        if account_id not in self._owned:
            owned = []
            for workspace_id in self._store.owned_workspace_ids(account_id):
                item = self.item(workspace_id)
                if item is not None and item.get("ownerId") == account_id:  # the index may lag a transfer
                    threshold = item.get("lowCreditsThreshold")
                    owned.append(Owned(workspace_id, int(threshold) if threshold is not None else None))
            self._owned[account_id] = owned
        return self._owned[account_id]

    def route(self, change: AccountChange) -> list[Event]:
        return route(change, self.owned(change.account_id))
