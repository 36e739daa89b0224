"""Usage read back (authoring.md, "Usage"): per UTC day, oldest first, ``days`` of them ending today, zeros included.

The usage package knows nothing of roles or keys' records: the route's provider hands it the caller's access check
(404 for a stranger, 403 for a member, 404 for another workspace's agent) and the workspace's key ids (its keys'
listing, revoked keys included: their usage stays). A day's requests and 429s are on the keys' window items (the open
day, and a closed day no later request handed on) and on the workspace's day items (the days handed on): one
BatchGetItem reads both (``UsageStore.read``). A key's usage is one round trip after the session: the check, the
workspace's keys (is this key one of them?), the key's window items with the day items, and the chat's usage items
go out together. An agent's is one too: its requests are on every key's window items, so the reader reads, beside
the listing, the windows of the keys this container knew the workspace to have (kept from its last listing of it);
only a key it had not seen (minted since, or a container's first read of the workspace) costs a second round trip,
for that key's windows alone (docs/decisions.md, "An agent's usage in one round trip").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping

from core.platform import rate_limit, together, usage_counters
from core.platform.errors import NotFound
from core.usage.models import UsageDay, UsagePage, UsageQuery
from core.usage.store import Counted, UsageStore

KeyIds = Callable[[str], list[str]]  # a workspace's key ids (revoked ones too)
KNOWN_WORKSPACES = 1024  # workspaces whose key ids a container keeps (LRU): a few KB


class UsageReader:
    def __init__(
        self, store: UsageStore, key_ids: KeyIds, check: Callable[..., object],
        clock: Callable[[], float] | None = None,
    ):  # fmt: skip
        self._store = store
        self._key_ids = key_ids
        self._check = check  # (user_id, workspace_id, agent_id=None): the caller's access as a writer
        self._clock = clock
        # The key ids each workspace had at this container's last listing: a hint of which windows to read beside
        # the listing, never the answer (the listing of the same round trip decides which keys count).
        self._known: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def of_key(self, user_id: str, workspace_id: str, key_id: str, query: UsageQuery) -> UsagePage:
        days = self._days(query.days)
        checked, keys, counted, chat = together.run(
            lambda: self._check(user_id, workspace_id),
            lambda: self._key_ids(workspace_id),
            lambda: self._store.read(workspace_id, [key_id], days),
            lambda: self._store.chat(workspace_id, "key", key_id, _date(days[0]), _date(days[-1])),
        )
        checked.result()  # the check decides first: nothing read is used for a stranger
        listed = keys.result()
        self._remember(workspace_id, listed)
        if key_id not in listed:
            raise NotFound("API key not found")
        found: Counted = counted.result()

        def count(kind: str, day: int) -> int:
            on_window = found.windows.get(key_id, {}).get(usage_counters.name(kind, day), 0)
            return on_window + found.days.get(day, {}).get(usage_counters.key_name(kind, key_id), 0)

        return self._page(count, chat.result(), days)

    def of_agent(self, user_id: str, workspace_id: str, agent_id: str, query: UsageQuery) -> UsagePage:
        days = self._days(query.days)
        with self._lock:
            known = self._known.get(workspace_id, ())
        checked, keys, counted, chat = together.run(
            lambda: self._check(user_id, workspace_id, agent_id=agent_id),
            lambda: self._key_ids(workspace_id),
            lambda: self._store.read(workspace_id, known, days),
            lambda: self._store.chat(workspace_id, "agent", agent_id, _date(days[0]), _date(days[-1])),
        )
        checked.result()
        listed = keys.result()
        self._remember(workspace_id, listed)
        found: Counted = counted.result()
        unseen = [key_id for key_id in listed if key_id not in known]
        if unseen:  # minted since this container last listed the workspace (or its first read): their windows now
            found.windows.update(self._store.read(workspace_id, unseen, []).windows)
        tag = usage_counters.tag_of(agent_id)

        def count(kind: str, day: int) -> int:
            name = usage_counters.name(kind, day, tag)
            on_windows = sum(found.windows.get(key_id, {}).get(name, 0) for key_id in listed)  # listed keys only
            return on_windows + found.days.get(day, {}).get(usage_counters.agent_name(kind, agent_id), 0)

        return self._page(count, chat.result(), days)

    def _remember(self, workspace_id: str, key_ids: list[str]) -> None:
        with self._lock:
            self._known[workspace_id] = tuple(key_ids)
            self._known.move_to_end(workspace_id)
            while len(self._known) > KNOWN_WORKSPACES:
                self._known.popitem(last=False)

    def _days(self, days: int) -> list[int]:
        """The ``days`` days ending today (days since the epoch), oldest first."""
        today = usage_counters.day_of(self._clock() if self._clock else rate_limit.now())  # the limiter's clock
        return list(range(today - days + 1, today + 1))

    @staticmethod
    def _page(count: Callable[[str, int], int], chat: Mapping[str, tuple[int, int]], days: list[int]) -> UsagePage:
        def entry(day: int) -> UsageDay:
            date = _date(day)
            turns, credits = chat.get(date, (0, 0))
            return UsageDay(date=date, requests=count(usage_counters.COUNTED, day), chat_turns=turns, credits=credits,
                            rate_limited=count(usage_counters.REFUSED, day))  # fmt: skip

        return UsagePage(days=[entry(day) for day in days])


def _date(day: int) -> str:
    return usage_counters.date_of(day)
