"""Usage read back (authoring.md, "Usage"): per UTC day, oldest first, ``days`` of them ending today, zeros included.

The usage package knows nothing of roles or keys' records: the route's provider hands it the caller's access check
(404 for a stranger, 403 for a member, 404 for another workspace's agent) and the workspace's key ids (its keys'
listing, revoked keys included: their usage stays). A key's usage is one round trip after the session: the check,
the workspace's keys (is this key one of them?), the key's window items (requests, 429s) and the workspace's usage
items (chat turns, credits) go out together. An agent's is two: its requests are on every key's window items, so
the keys are listed (beside the check and the usage items) before they are read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from core.platform import rate_limit, together, usage_counters
from core.platform.errors import NotFound
from core.usage.models import UsageDay, UsagePage, UsageQuery
from core.usage.store import UsageStore

KeyIds = Callable[[str], list[str]]  # a workspace's key ids (revoked ones too)


class UsageReader:
    def __init__(
        self, store: UsageStore, key_ids: KeyIds, check: Callable[..., object],
        clock: Callable[[], float] | None = None,
    ):  # fmt: skip
        self._store = store
        self._key_ids = key_ids
        self._check = check  # (user_id, workspace_id, agent_id=None): the caller's access as a writer
        self._clock = clock

    def of_key(self, user_id: str, workspace_id: str, key_id: str, query: UsageQuery) -> UsagePage:
        days = self._days(query.days)
        checked, keys, counters, chat = together.run(
            lambda: self._check(user_id, workspace_id),
            lambda: self._key_ids(workspace_id),
            lambda: self._store.counters([key_id]),
            lambda: self._store.chat(workspace_id, "key", key_id, _date(days[0]), _date(days[-1])),
        )
        checked.result()  # the check decides first: nothing read is used for a stranger
        if key_id not in keys.result():
            raise NotFound("API key not found")
        return self._page(counters.result(), chat.result(), None, days)

    def of_agent(self, user_id: str, workspace_id: str, agent_id: str, query: UsageQuery) -> UsagePage:
        days = self._days(query.days)
        checked, keys, chat = together.run(
            lambda: self._check(user_id, workspace_id, agent_id=agent_id),
            lambda: self._key_ids(workspace_id),
            lambda: self._store.chat(workspace_id, "agent", agent_id, _date(days[0]), _date(days[-1])),
        )
        checked.result()
        return self._page(self._store.counters(keys.result()), chat.result(), agent_id, days)

    def _days(self, days: int) -> list[int]:
        """The ``days`` days ending today (days since the epoch), oldest first."""
        today = usage_counters.day_of(self._clock() if self._clock else rate_limit.now())  # the limiter's clock
        return list(range(today - days + 1, today + 1))

    def _page(
        self, counters: Mapping[str, int], chat: Mapping[str, tuple[int, int]], agent_id: str | None, days: list[int]
    ) -> UsagePage:
        tag = usage_counters.tag_of(agent_id)

        def count(kind: str, day: int) -> int:
            return counters.get(usage_counters.name(kind, day, tag), 0)

        def entry(day: int) -> UsageDay:
            date = _date(day)
            turns, credits = chat.get(date, (0, 0))
            return UsageDay(date=date, requests=count(usage_counters.COUNTED, day), chat_turns=turns, credits=credits,
                            rate_limited=count(usage_counters.REFUSED, day))  # fmt: skip

        return UsagePage(days=[entry(day) for day in days])


def _date(day: int) -> str:
    return datetime.fromtimestamp(day * usage_counters.DAY_SECONDS, UTC).strftime("%Y-%m-%d")
