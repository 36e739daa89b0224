"""The turn log's one write: ``TurnLog.actions`` committed as one TransactWriteItems (``core.insights.turn_log``)."""

from __future__ import annotations

from typing import Any

from core.platform.transactions import Transaction


class TurnLogStore:
    def __init__(self, client: Any):
        self._db = client

    def record(self, actions: Transaction) -> None:
        """All of the turn's items or none; a conflict with another turn's write of the same day shard or question
        is sent again (``Transaction.commit``). No step is conditioned: nothing here can be refused."""
        actions.commit_or_raise(self._db)
