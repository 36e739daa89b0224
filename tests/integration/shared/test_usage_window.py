"""Issue 43: a key's rate-limit window item holds only the open day; its closed days are handed on once.

The read plane's key check (``KeyAuthenticator``, as every ``/v1`` function runs it) counts each request on the
key's window item, with the key's and the agent's usage counters. Before issue 43 the item kept 90 days of them: a
key serving 16 agents carried ~57 KB after 90 days, so each request's write cost ~57 write units instead of 1.
Now the first counted write of a day hands the closed day on to the workspace's day item (one transaction,
conditioned on the counters read), and the usage reader sums the window items and the day items. These tests run
the real key check and the real reader on moto, with a fake clock; a race and faults are injected at the hand-on.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from botocore.exceptions import ClientError

from bench.dynamo_meter import item_size, write_units
from core.keys import key_format
from core.keys.check import KeyAuthenticator
from core.keys.records import ApiKeyRecord
from core.platform import usage_counters
from core.platform.errors import RateLimited
from core.platform.rate_limit_store import RateLimitStore
from core.platform.settings import get_settings
from core.usage.models import UsageQuery
from core.usage.reader import UsageReader
from core.usage.store import UsageStore
from tests.integration.conftest import WINDOW_START, Clock

WORKSPACE = "ws_usage43"
AGENTS = [f"prj_agent{n:02d}" for n in range(16)]  # the day's cap of agents (usage_counters.MAX_AGENTS_A_DAY)
LIMIT = 2 * len(AGENTS)  # a day: every agent twice is counted, then once more each is a 429
DAY = usage_counters.DAY_SECONDS


@dataclass
class Keys:
    """The read plane's key lookup (``ApiKeyLookup``) over records made here: the rate limit is what is tested."""

    records: dict[str, ApiKeyRecord] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)  # key id -> the raw key a client sends

    def mint(self, key_id: str) -> str:
        raw = key_format.generate()
        record = ApiKeyRecord(
            id=key_id, key_hash=key_format.hash_key(raw), workspace_id=WORKSPACE, name=key_id, prefix=raw[:8],
            rate_limit=LIMIT, created_at="2027-01-15T00:00:00Z",
        )  # fmt: skip
        self.records[record.key_hash] = record
        self.raw[key_id] = raw
        return raw

    def get_by_hash(self, key_hash: str) -> ApiKeyRecord | None:
        return self.records.get(key_hash)

    def hash_of(self, key_id: str) -> str | None:
        return next((h for h, r in self.records.items() if r.id == key_id), None)

    def touch_last_used(self, key_hash: str, at: str) -> None:
        return None

    def ids(self, workspace_id: str) -> list[str]:
        return [r.id for r in self.records.values() if r.workspace_id == workspace_id]


@dataclass
class World:
    aws: Any
    clock: Clock
    keys: Keys
    sent: Counter[tuple[int, str, str, str]] = field(default_factory=Counter)  # (day, kind, key, agent or "")

    def container(self) -> KeyAuthenticator:
        """A read-plane container's key check (its own limiter: its own memory of failed hand-ons)."""
        limits = RateLimitStore(self.aws.dynamodb, get_settings().rate_limits_table)
        return KeyAuthenticator(self.keys, limits, default_rate_limit=600, clock=self.clock)

    def request(self, check: KeyAuthenticator, key_id: str, agent: str | None) -> bool:
        """One ``/v1`` request's key check; True if counted, False if 429. The truth the usage must equal."""
        headers = {"Authorization": f"Bearer {self.keys.raw[key_id]}"}
        day = usage_counters.day_of(self.clock.now)
        try:
            check.authenticate(headers, agent_id=agent)
        except RateLimited:
            kind = usage_counters.REFUSED
        else:
            kind = usage_counters.COUNTED
        self.sent[(day, kind, key_id, "")] += 1
        if agent:
            self.sent[(day, kind, key_id, agent)] += 1
        return kind == usage_counters.COUNTED

    def serve_day(self, check: KeyAuthenticator, key_id: str, day_start: float) -> None:
        """Every agent twice (counted), then once more each (429s), inside one minute of the day."""
        self.clock.now = day_start + 30
        for agent in AGENTS * 2:
            assert self.request(check, key_id, agent)
        for agent in AGENTS:
            assert not self.request(check, key_id, agent)

    def serve_one(self, check: KeyAuthenticator, key_id: str, day_start: float, agent: str) -> None:
        """One counted request for ``agent`` in the day."""
        self.clock.now = day_start + 30
        assert self.request(check, key_id, agent)

    def window(self, key_id: str) -> dict[str, Any]:
        item = self.aws.dynamodb.get_item(
            TableName=get_settings().rate_limits_table, Key={"pk": {"S": f"key#{key_id}"}}, ConsistentRead=True
        ).get("Item")
        assert item is not None
        return dict(item)

    def reader(self) -> UsageReader:
        settings = get_settings()
        store = UsageStore(self.aws.dynamodb, settings.rate_limits_table, settings.ledger_table)
        return UsageReader(store, self.keys.ids, lambda *_, **__: None, clock=self.clock)

    def expected(self, days: list[int], key_id: str | None, agent: str | None) -> list[tuple[int, int]]:
        """(requests, 429s) a day, from what was sent: a key's own, or an agent's over every key."""

        def total(day: int, kind: str) -> int:
            return sum(
                n for (d, k, key, a), n in self.sent.items()
                if d == day and k == kind and (key_id is None or key == key_id) and a == (agent or "")
            )  # fmt: skip

        return [(total(day, usage_counters.COUNTED), total(day, usage_counters.REFUSED)) for day in days]


@pytest.fixture
def world(aws: Any, clock: Clock) -> World:
    return World(aws, clock, Keys())


def page(found: Any) -> list[tuple[int, int]]:
    return [(day.requests, day.rate_limited) for day in found.days]


def days_ending(clock: Clock, count: int) -> list[int]:
    today = usage_counters.day_of(clock.now)
    return list(range(today - count + 1, today + 1))


def test_the_window_item_after_ninety_days_is_the_size_of_its_first_day(world: World) -> None:
    """A key serving 16 agents (and 16 429s) on its first and its 90th day, and one agent a day between: its window
    item, and so the write units of each request's write (1 KB units of the item's size), stay those of its first
    day. Before: ~57 KB, 57 units. (The days between serve one request each, to the agents in turn: every day's
    counters are still handed on and read back, at 1 request a day instead of 48; 90 full days took 94 s of CI.)"""
    world.keys.mint("key_a")
    check = world.container()
    world.serve_day(check, "key_a", WINDOW_START)
    first = item_size(world.window("key_a"))
    for day in range(1, 89):
        world.serve_one(check, "key_a", WINDOW_START + day * DAY, AGENTS[day % len(AGENTS)])
    world.serve_day(check, "key_a", WINDOW_START + 89 * DAY)
    last = item_size(world.window("key_a"))
    counters = [name for name in world.window("key_a") if usage_counters.parse(name)]
    assert {usage_counters.parse(name)[1] for name in counters} == {usage_counters.day_of(world.clock.now)}  # type: ignore[index]
    assert len(counters) == 2 * (1 + len(AGENTS))  # the open day only: the key's and each agent's, counted and 429s
    assert abs(last - first) <= 8, (first, last)
    assert write_units(last) == write_units(first) == 1, (first, last)
    # Nothing was lost on the way: the 90 days read back exactly as they were served, for the key and each agent.
    days = days_ending(world.clock, 90)
    assert page(world.reader().of_key("u", WORKSPACE, "key_a", UsageQuery(days=90))) == world.expected(
        days, "key_a", None
    )
    for agent in AGENTS[:3]:
        assert page(world.reader().of_agent("u", WORKSPACE, agent, UsageQuery(days=90))) == world.expected(
            days, None, agent
        )


def test_a_closed_day_nobody_requested_after_is_read_from_the_window_item(world: World) -> None:
    """Yesterday's counters with no request today were never handed on: still on the window item, and counted."""
    world.keys.mint("key_a")
    world.serve_day(world.container(), "key_a", WINDOW_START)
    world.clock.now = WINDOW_START + 3 * DAY
    days = days_ending(world.clock, 5)
    assert page(world.reader().of_key("u", WORKSPACE, "key_a", UsageQuery(days=5))) == world.expected(
        days, "key_a", None
    )
    assert page(world.reader().of_agent("u", WORKSPACE, AGENTS[0], UsageQuery(days=5))) == world.expected(
        days, None, AGENTS[0]
    )


def day_item(world: World, day: int) -> dict[str, int]:
    item = world.aws.dynamodb.get_item(
        TableName=get_settings().rate_limits_table,
        Key={"pk": {"S": usage_counters.day_item(WORKSPACE, day)}}, ConsistentRead=True,
    ).get("Item") or {}  # fmt: skip
    return {name: int(value["N"]) for name, value in item.items() if name not in ("pk", "expiresAt")}


@pytest.fixture
def hand_ons(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Callable[[], None]]]:
    """Things to run just before the next hand-on's transaction (one per hand-on, in order): the race's other side."""
    before: list[Callable[[], None]] = []
    original = RateLimitStore.hand_on

    def hand_on(self: RateLimitStore, *args: Any, **kwargs: Any) -> bool:
        if before:
            before.pop(0)()
        return original(self, *args, **kwargs)

    monkeypatch.setattr(RateLimitStore, "hand_on", hand_on)
    yield before


def test_two_containers_handing_on_the_same_day_at_once_move_it_once(world: World, hand_ons: list[Any]) -> None:
    """Container A's first request of the new day reads yesterday's counters and, before its transaction lands,
    container B's request (same key) hands the same counters on. A's transaction is cancelled (the counters it read
    are gone): yesterday is on the day item once, and on the window item no more."""
    world.keys.mint("key_a")
    one, two = world.container(), world.container()
    world.serve_day(one, "key_a", WINDOW_START)
    yesterday, today = usage_counters.day_of(WINDOW_START), usage_counters.day_of(WINDOW_START + DAY)
    world.clock.now = WINDOW_START + DAY + 5
    hand_ons.append(lambda: world.request(two, "key_a", AGENTS[1]))  # B runs whole inside A's hand-on
    assert world.request(one, "key_a", AGENTS[0])
    assert not hand_ons, "A's request made no hand-on"
    handed = day_item(world, yesterday)
    assert handed[usage_counters.key_name(usage_counters.COUNTED, "key_a")] == LIMIT
    assert handed[usage_counters.key_name(usage_counters.REFUSED, "key_a")] == len(AGENTS)
    assert handed[usage_counters.agent_name(usage_counters.COUNTED, AGENTS[0])] == 2
    assert all(usage_counters.parse(n)[1] == today for n in world.window("key_a") if usage_counters.parse(n))  # type: ignore[index]
    days = days_ending(world.clock, 2)
    assert page(world.reader().of_key("u", WORKSPACE, "key_a", UsageQuery(days=2))) == world.expected(
        days, "key_a", None
    )


def test_a_count_landing_on_the_closed_day_during_the_hand_on_is_moved_by_the_next_one(
    world: World, hand_ons: list[Any]
) -> None:
    """A container whose clock lags counts a request on yesterday after A read yesterday's counters and before A's
    transaction: A's condition fails, nothing moves; the next request's hand-on (another container) moves
    yesterday with the late request. Never lost, never twice."""
    world.keys.mint("key_a")
    one, two, late = world.container(), world.container(), world.container()
    world.serve_day(one, "key_a", WINDOW_START)
    yesterday = usage_counters.day_of(WINDOW_START)

    def lagging() -> None:
        world.clock.now = (yesterday + 1) * DAY - 1  # yesterday's last second, by a lagging clock
        assert world.request(late, "key_a", AGENTS[2])
        world.clock.now = WINDOW_START + DAY + 5

    world.clock.now = WINDOW_START + DAY + 5
    hand_ons.append(lagging)
    assert world.request(one, "key_a", AGENTS[0])
    counted = usage_counters.name(usage_counters.COUNTED, yesterday)
    assert int(world.window("key_a")[counted]["N"]) == LIMIT + 1, "A's hand-on moved counters that had changed"
    assert world.request(two, "key_a", AGENTS[1])  # another container: hands yesterday on, the late request with it
    assert day_item(world, yesterday)[usage_counters.key_name(usage_counters.COUNTED, "key_a")] == LIMIT + 1
    assert counted not in world.window("key_a")
    days = days_ending(world.clock, 2)
    assert page(world.reader().of_key("u", WORKSPACE, "key_a", UsageQuery(days=2))) == world.expected(
        days, "key_a", None
    )
    assert page(world.reader().of_agent("u", WORKSPACE, AGENTS[2], UsageQuery(days=2))) == world.expected(
        days, None, AGENTS[2]
    )


def transact_failing(monkeypatch: pytest.MonkeyPatch, *, after: bool) -> list[int]:
    """While ``attempts`` is not cleared of its 0 (its first element), every TransactWriteItems of the rate-limits
    store fails: before it reaches DynamoDB, or ``after`` it committed (a lost reply); each attempt is appended."""
    attempts: list[int] = [0]
    original = RateLimitStore.hand_on

    def hand_on(self: RateLimitStore, *args: Any, **kwargs: Any) -> bool:
        if not attempts or attempts[0] != 0:
            return original(self, *args, **kwargs)
        real = self._db.transact_write_items

        def failing(**params: Any) -> Any:
            attempts.append(1)
            if after:
                real(**params)
            raise ClientError({"Error": {"Code": "InternalServerError", "Message": "injected"}}, "TransactWriteItems")

        self._db = _Swapped(self._db, failing)
        try:
            return original(self, *args, **kwargs)
        finally:
            self._db = self._db.inner

    monkeypatch.setattr(RateLimitStore, "hand_on", hand_on)
    return attempts


class _Swapped:
    """A DynamoDB client whose ``transact_write_items`` is replaced (the store's other calls go through)."""

    def __init__(self, inner: Any, transact: Callable[..., Any]):
        self.inner, self.transact_write_items = inner, transact

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.parametrize("after", [False, True], ids=["failed", "reply-lost"])
def test_a_failed_hand_on_fails_no_request_and_loses_or_doubles_no_count(
    world: World, monkeypatch: pytest.MonkeyPatch, after: bool
) -> None:
    """The hand-on's transaction fails (before DynamoDB, or after it committed): the request is still counted (the
    hand-on is bookkeeping after the count), and the usage read equals what was sent, then and after later days'
    requests (a failed hand-on is retried by a later write; a committed one is not repeated)."""
    world.keys.mint("key_a")
    check = world.container()
    world.serve_day(check, "key_a", WINDOW_START)
    attempts = transact_failing(monkeypatch, after=after)
    world.clock.now = WINDOW_START + DAY + 5
    assert world.request(check, "key_a", AGENTS[0])
    assert attempts == [0, 1]
    assert world.request(check, "key_a", AGENTS[0])  # the same second: this container does not retry at once
    assert attempts == [0, 1]
    days = days_ending(world.clock, 2)
    assert page(world.reader().of_key("u", WORKSPACE, "key_a", UsageQuery(days=2))) == world.expected(
        days, "key_a", None
    )
    attempts[0] = 2  # AWS is back
    world.serve_day(check, "key_a", WINDOW_START + 2 * DAY)
    days = days_ending(world.clock, 3)
    assert page(world.reader().of_key("u", WORKSPACE, "key_a", UsageQuery(days=3))) == world.expected(
        days, "key_a", None
    )
    assert page(world.reader().of_agent("u", WORKSPACE, AGENTS[0], UsageQuery(days=3))) == world.expected(
        days, None, AGENTS[0]
    )
    counters = [usage_counters.parse(n) for n in world.window("key_a") if usage_counters.parse(n)]
    assert {c[1] for c in counters if c} == {usage_counters.day_of(world.clock.now)}


def test_usage_pages_over_many_keys_and_days_equal_what_was_sent(world: World) -> None:
    """Three keys used on some days and not others, from two containers: every key's and agent's page, at 1, 7 and
    30 days, equals the requests and 429s sent (the usage as it was read before issue 43)."""
    for key_id in ("key_a", "key_b", "key_c"):
        world.keys.mint(key_id)
    checks = [world.container(), world.container()]
    schedule = {0: ["key_a", "key_b"], 1: ["key_a"], 3: ["key_b", "key_c"], 4: ["key_a", "key_c"], 6: ["key_c"]}
    for day, key_ids in schedule.items():
        for n, key_id in enumerate(key_ids):
            world.clock.now = WINDOW_START + day * DAY + 30 + n * 120  # each key in a minute of its own
            for agent in AGENTS[:3] * 2:
                world.request(checks[n % 2], key_id, agent)
            world.request(checks[(n + 1) % 2], key_id, None)
    world.clock.now = WINDOW_START + 7 * DAY + 10
    reader = world.reader()
    for count in (1, 7, 30):
        days = days_ending(world.clock, count)
        for key_id in ("key_a", "key_b", "key_c"):
            found = reader.of_key("u", WORKSPACE, key_id, UsageQuery(days=count))
            assert page(found) == world.expected(days, key_id, None), (key_id, count)
        for agent in AGENTS[:4]:
            found = reader.of_agent("u", WORKSPACE, agent, UsageQuery(days=count))
            assert page(found) == world.expected(days, None, agent), (agent, count)


def test_a_deleted_workspaces_day_items_go_with_it(world: World) -> None:
    """The purge's usage deletion also deletes the day items the windows handed their closed days to."""
    world.keys.mint("key_a")
    check = world.container()
    world.serve_day(check, "key_a", WINDOW_START)
    world.serve_day(check, "key_a", WINDOW_START + DAY)
    yesterday = usage_counters.day_of(WINDOW_START)
    assert day_item(world, yesterday)
    settings = get_settings()
    UsageStore(world.aws.dynamodb, settings.rate_limits_table, settings.ledger_table).delete_workspace_usage(
        WORKSPACE, ["key_a"]
    )
    assert day_item(world, yesterday) == {}


def test_a_write_meeting_a_hand_on_in_flight_is_decided_again_not_failed(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DynamoDB refuses a plain write to an item a transaction holds (TransactionConflictException): the limiter
    treats it as contention and writes again; the request is counted once."""
    world.keys.mint("key_a")
    check = world.container()
    world.clock.now = WINDOW_START + 5
    real = world.aws.dynamodb.update_item
    conflicts = [1]
    lock = threading.Lock()

    def conflicting(**params: Any) -> Any:
        with lock:
            if conflicts and params.get("TableName") == get_settings().rate_limits_table:
                conflicts.pop()
                raise world.aws.dynamodb.exceptions.TransactionConflictException(
                    {"Error": {"Code": "TransactionConflictException", "Message": "injected"}}, "UpdateItem"
                )
        return real(**params)

    monkeypatch.setattr(world.aws.dynamodb, "update_item", conflicting)
    assert world.request(check, "key_a", AGENTS[0])
    assert not conflicts
    today = usage_counters.day_of(world.clock.now)
    assert int(world.window("key_a")[usage_counters.name(usage_counters.COUNTED, today)]["N"]) == 1
