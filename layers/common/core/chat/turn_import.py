"""Turns stored in S3 by versions before the table held them, moved into the table (``make ops ARGS=import-turns``).

Versions before the conversations endpoints stored each turn as an object,
``workspaces/<ws>/conversations/<agentId>/<client>/<threadKey>/<turnId>.json``. Nothing lists, reads back or erases
those: an upgraded deployment's owner could not see them, and a visitor's erasure left them. This moves them, thread
by thread: each turn becomes the item the chat writes today (kept if it is already there: a run that stopped short
is run again), then the thread's item is rebuilt from every turn it now has (its counts, first and last turn, TTL
and listing key, as ``ConversationStore.save`` keeps them), and only then are the thread's objects deleted. A turn
the chat stored meanwhile moves the thread's ``lastAt``: the rebuild is conditioned on the one it read, and done
again. Turns of a deleted workspace or agent are left to its purge. The old format did not record a turn's credits:
an imported turn says ``credits_per_turn`` (the price, which the old versions charged a delivered
turn) when it was complete, 0 when it was not.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from core.platform.retention import DAY_COUNT, DAY_FIRST, day_of, expires_at

logger = logging.getLogger(__name__)
REBUILD_ATTEMPTS = 5  # each failed one means the chat stored a turn meanwhile: contention, never a loop
FIELDS = ("turnId", "threadKey", "agentId", "client", "prompt", "reply", "createdAt")  # what a turn must hold


class LegacyTurns(Protocol):
    """The S3 objects of turns stored by older versions (``TurnImportStore``)."""

    def legacy_keys(self, workspace_id: str | None) -> Iterator[str]: ...
    def legacy_turn(self, key: str) -> dict[str, Any] | None: ...
    def remove_legacy(self, keys: list[str]) -> None: ...


class TurnTable(Protocol):
    """The stored turns and threads in the main table (``TurnImportStore``)."""

    def put_new_turn(self, workspace_id: str, turn: dict[str, Any], expiry: int | None) -> bool: ...
    def thread_turns(self, agent_id: str, client: str, thread_key: str) -> list[dict[str, Any]]: ...
    def thread_last_at(self, agent_id: str, client: str, thread_key: str) -> str | None: ...
    def put_thread(self, thread: dict[str, Any], *, seen_last_at: str | None) -> bool: ...


@dataclass(frozen=True)
class Imported:
    objects: int
    turns: int  # written now (a turn already in the table is not counted)
    threads: int
    skipped: int  # unreadable objects, or of a workspace or agent no longer there (left to its purge)


@dataclass(frozen=True)
class Where:
    workspace_id: str
    agent_id: str
    client: str
    thread_key: str

    @classmethod
    def of(cls, key: str) -> Where | None:
        parts = key.split("/")
        if len(parts) != 7 or parts[0] != "workspaces" or parts[2] != "conversations" or not parts[6].endswith(".json"):
            return None
        return cls(parts[1], parts[3], parts[4], parts[5])


def thread_item(where: Where, turns: list[dict[str, Any]], days: int | None) -> dict[str, Any]:
    """A thread's item as ``ConversationStore.save`` leaves it after storing ``turns`` (oldest first) one by one."""
    first, last = turns[0]["createdAt"], turns[-1]["createdAt"]
    counts: dict[str, Any] = {}
    for turn in turns:
        day = day_of(turn["createdAt"])
        counts[DAY_COUNT + day] = counts.get(DAY_COUNT + day, 0) + 1
        counts.setdefault(DAY_FIRST + day, turn["createdAt"])
    expiry = expires_at(last, days)
    return {"workspaceId": where.workspace_id, "agentId": where.agent_id, "client": where.client,
            "threadKey": where.thread_key, "startedAt": first, "lastAt": last} | counts | (
        {"expiresAt": expiry} if expiry is not None else {})  # fmt: skip


class TurnImporter:
    def __init__(
        self, legacy: LegacyTurns, table: TurnTable, *, retention_of: Callable[[str, str], tuple[bool, int | None]],
        credits_per_turn: int,
    ):  # fmt: skip
        self._legacy = legacy
        self._table = table
        self._retention_of = retention_of  # (the workspace and agent exist, the workspace's retention in days)
        self._credits = credits_per_turn

    def run(self, workspace_id: str | None = None) -> Imported:
        """Every legacy turn (of one workspace, or all), thread by thread (keys list in name order)."""
        objects = turns = threads = skipped = 0
        batch: list[str] = []
        for key in self._legacy.legacy_keys(workspace_id):
            objects += 1
            if batch and Where.of(batch[0]) != Where.of(key):
                moved, left = self._thread(batch)
                turns, skipped, threads = turns + moved, skipped + left, threads + 1
                batch = []
            batch.append(key)
        if batch:
            moved, left = self._thread(batch)
            turns, skipped, threads = turns + moved, skipped + left, threads + 1
        done = Imported(objects, turns, threads, skipped)
        logger.info("legacy turns imported", extra=done.__dict__)
        return done

    def _thread(self, keys: list[str]) -> tuple[int, int]:
        """One thread's objects: (turns written, objects skipped)."""
        where = Where.of(keys[0])
        exists, days = self._retention_of(where.workspace_id, where.agent_id) if where else (False, None)
        if where is None or not exists:
            return 0, len(keys)
        written = skipped = 0
        moved: list[str] = []
        for key in keys:
            turn = self._legacy.legacy_turn(key)
            if turn is None or any(not isinstance(turn.get(field), str) for field in FIELDS) or (
                (turn["agentId"], turn["client"], turn["threadKey"]) != (where.agent_id, where.client, where.thread_key)
            ):  # fmt: skip
                logger.warning("a legacy turn was not readable", extra={"key": key})
                skipped += 1
                continue
            complete = turn.get("complete") is not False
            turn = {"section": None, "usage": None} | turn | {"complete": complete,
                                                               "credits": self._credits if complete else 0}  # fmt: skip
            written += self._table.put_new_turn(where.workspace_id, turn, expires_at(turn["createdAt"], days))
            moved.append(key)
        self._rebuild(where, days)
        self._legacy.remove_legacy(moved)  # an unreadable object stays where it is (logged)
        return written, skipped

    def _rebuild(self, where: Where, days: int | None) -> None:
        for _ in range(REBUILD_ATTEMPTS):
            seen = self._table.thread_last_at(where.agent_id, where.client, where.thread_key)
            turns = self._table.thread_turns(where.agent_id, where.client, where.thread_key)
            if not turns:
                return
            if self._table.put_thread(thread_item(where, turns, days), seen_last_at=seen):
                return
        raise RuntimeError(f"the thread {where.thread_key} kept moving: run the import again")
