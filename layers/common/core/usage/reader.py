"""Usage read back (authoring.md, "Usage"): per UTC day, oldest first, ``days`` of them ending today, zeros included.

The usage package knows nothing of roles or keys' records: the route's provider hands it the caller's access check
(404 for a stranger, 403 for a member, 404 for another workspace's agent) and the workspace's key ids (its keys'
listing, revoked keys included: their usage stays). A key's usage is one round trip after the session: the check,
the workspace's keys (is this key one of them?) and the key's window items go out together. An agent's is two:
its counters are on every key's window items, so the keys are listed (beside the check) before they are read.
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
        checked, keys, counters = together.run(
            lambda: self._check(user_id, workspace_id),
            lambda: self._key_ids(workspace_id),
            lambda: self._store.counters([key_id]),
        )
        checked.result()  # the check decides first: nothing read is used for a stranger
        if key_id not in keys.result():
            raise NotFound("API key not found")
        return self._page(counters.result(), None, query.days)

    def of_agent(self, user_id: str, workspace_id: str, agent_id: str, query: UsageQuery) -> UsagePage:
        _, keys = together.checked_then_read(lambda: self._check(user_id, workspace_id, agent_id=agent_id),
                                             lambda: self._key_ids(workspace_id))  # fmt: skip
        return self._page(self._store.counters(keys()), agent_id, query.days)

    def _page(self, counters: Mapping[str, int], agent_id: str | None, days: int) -> UsagePage:
        today = usage_counters.day_of(self._clock() if self._clock else rate_limit.now())  # the limiter's clock
        tag = usage_counters.tag_of(agent_id)

        def count(kind: str, day: int) -> int:
            return counters.get(usage_counters.name(kind, day, tag), 0)

        return UsagePage(days=[
            UsageDay(
                date=datetime.fromtimestamp(day * usage_counters.DAY_SECONDS, UTC).strftime("%Y-%m-%d"),
                requests=count(usage_counters.COUNTED, day), chat_turns=0, credits=0,
                rate_limited=count(usage_counters.REFUSED, day),
            )
            for day in range(today - days + 1, today + 1)
        ])  # fmt: skip
