"""Every list endpoint reads one page plus a cursor, whatever the data behind it (issue 43).

Each listing is read at two sizes: N records (its page and a few more) and ten times N. What the request asks of AWS is
recorded on core's own clients (``tests.support.insights_seed.ItemsRead``: the calls by operation and table, and
the items each Query evaluated and each BatchGetItem returned; S3's calls for objects) and must be EQUAL at both
sizes: a listing that reads everything, or filters after the read, reads ten times more at the larger size. Counts
of operations, never a wall-clock time.

The records are made once through the API, then copied with fresh ids (``tests.support.lists``). Usage is bounded
by ``days``, not by the data (its reader: issue 43's day items); the webhooks' listing by the workspace's cap
(``WEBHOOKS_MAX``). The credit history's reader is being rebuilt (H1 of issue 43): its two-size cases here fail
until that lands.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from core.platform import providers as platform_providers
from core.platform.dynamo import to_item
from core.platform.pages import NEXT_CURSOR
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.core_clients import core_tables, wrap_core_clients
from tests.support.insights_seed import ItemsRead
from tests.support.ledger_checks import ledger_repository
from tests.support.lists import LISTINGS, Listing, copies
from tests.support.portal import Portal
from tests.support.streams import drain_events
from tests.support.webhooks import create as create_webhook

TEN_TIMES = 10


@pytest.fixture
def meter(aws: Any, monkeypatch: pytest.MonkeyPatch) -> ItemsRead:
    found = ItemsRead(core_tables())
    wrap_core_clients(found.attach, monkeypatch)
    platform_providers.reset()
    return found


@pytest.fixture
def studio(portal: Portal) -> Studio:
    return Studio.open(portal, plan="business")


def read_page(studio: Studio, meter: ItemsRead, listing: Listing) -> tuple[int, Counter[str], int, str | None]:
    """One page, read warm: the items read, the calls by operation and table, how many records it showed and the
    next page's cursor."""
    studio.ok(listing.function, 200, query=listing.query, **listing.ids)  # a warm container
    with meter.record():
        result = studio.call(listing.function, query=listing.query, **listing.ids)
    assert result.status == 200, result.body
    answer = result.json()
    if isinstance(answer, list):  # a bare array (members, brands: service-api.md): the cursor is a header
        return meter.items, Counter(str(c) for c in meter.calls), len(answer), result.header(NEXT_CURSOR)
    return meter.items, Counter(str(c) for c in meter.calls), len(answer[listing.shown]), answer.get("nextCursor")


@pytest.mark.parametrize("name", LISTINGS)
def test_a_page_reads_the_same_at_n_and_ten_times_n(studio: Studio, meter: ItemsRead, name: str) -> None:
    listing = LISTINGS[name](studio)
    small = listing.page + 5
    listing.grow(small)
    at_small = read_page(studio, meter, listing)
    listing.grow(small * TEN_TIMES)
    at_large = read_page(studio, meter, listing)
    assert at_small[:2] == at_large[:2], f"{name}: items read and calls at {small} and {small * TEN_TIMES} records"
    assert at_small[2] == at_large[2] == listing.page, f"{name}: a full page at both sizes"
    assert at_small[3] and at_large[3], f"{name}: a page with records behind it names the next"


# ------------------------------------------------------------------ the webhooks: bounded by the workspace's cap


def test_the_webhooks_listing_is_bounded_by_the_cap(studio: Studio, meter: ItemsRead) -> None:
    """No page: a workspace has at most ``WEBHOOKS_MAX`` webhooks (a create past it is refused), so the listing reads
    at most that many, whatever else the workspace holds."""
    cap = get_settings().webhooks_max
    for _ in range(cap):
        create_webhook(studio)
    refused = studio.call("PortalWebhookCreateFunction", body={"url": "https://93.184.215.14/h", "events": ["*"]})
    assert refused.status >= 400, refused.body  # the cap holds
    studio.ok("PortalWebhooksListFunction")
    copies(studio, [studio.brand("Noise")["id"]], others=1)(500)  # more of the workspace's partition
    with meter.record():
        listed = studio.ok("PortalWebhooksListFunction")["webhooks"]
    webhooks = Counter(str(c) for c in meter.calls)["Query:main"]
    assert (len(listed), webhooks) == (cap, 1)
    assert meter.items <= cap + 3, meter.items  # the webhooks, beside the access check's membership and workspace


# ------------------------------------------------------------------ credit history (H1 rebuilds its reader)

HISTORY = "PortalCreditsHistoryFunction"
NUMBERER = "LedgerHistoryFunction"
HISTORY_PAGE = 50
REFUNDS_PAGE = 4  # of the 6 refunds in 60 entries


def _grants(studio: Studio, upto: int, made: list[int]) -> None:
    """Entries granted through the ledger, then the stream handed to the history numberer (as Lambda would): the
    page read is the numbered path, not the tail every entry is before it runs."""
    ledger = ledger_repository(studio.portal.aws.dynamodb)
    for k in range(made[0], upto):  # a refund one entry in ten: a rare type, filtered or keyed
        ledger.grant(studio.who.user_id, 1, "refund" if k % 10 == 0 else "topup", f"ref_{k:06d}", "Top-up")
    made[0] = upto
    assert drain_events(NUMBERER).failed == []


def _history(studio: Studio, meter: ItemsRead, query: dict[str, str]) -> tuple[int, Counter[str]]:
    studio.ok(HISTORY, query=query)
    with meter.record():
        page = studio.ok(HISTORY, query=query)
    assert page["entries"], page
    return meter.items, Counter(str(c) for c in meter.calls)


def test_a_history_page_reads_the_same_at_n_and_ten_times_n(studio: Studio, meter: ItemsRead) -> None:
    """The newest page, the oldest (the deepest offset) and the newest refunds (one entry in ten), the history
    numberer caught up: items read and calls equal at 60 and 600 entries (the rows' Queries: one or two). The three
    pages are read off one ledger at each size (granting 600 entries is most of the test's time)."""
    made = [0]
    read: dict[str, list[tuple[int, Counter[str]]]] = {"newest": [], "oldest": [], "refunds": []}
    for size in (HISTORY_PAGE + 10, (HISTORY_PAGE + 10) * TEN_TIMES):
        _grants(studio, size, made)
        for where, pages in read.items():
            # refunds are one entry in ten: their page is smaller, so that the smaller ledger holds more than a page
            page = REFUNDS_PAGE if where == "refunds" else HISTORY_PAGE
            query = {"limit": str(page)}
            query |= {"offset": str(size - page)} if where == "oldest" else {}
            query |= {"refType": "refund"} if where == "refunds" else {}
            pages.append(_history(studio, meter, query))
    for where, ((small_items, small_calls), (large_items, large_calls)) in read.items():
        # A page of history rows spans at most two of the row partitions (blocks of 100 numbers over 16 partitions,
        # docs/ledger.md): one Query or two, as the page falls on a block's edge or not, whatever the ledger's size.
        rows = [calls.pop("Query:ledger", 0) for calls in (small_calls, large_calls)]
        assert small_items == large_items, f"history ({where}): items read at two sizes"
        assert small_calls == large_calls, f"history ({where}): calls other than the rows' Queries at two sizes"
        assert all(1 <= n <= 2 for n in rows), (where, rows)
        assert large_items <= 2 * HISTORY_PAGE + 3, (where, read)  # the numbered path: a page and one more at most


# ------------------------------------------------------------------ usage: bounded by ``days``, not by the history

USAGE = ("PortalKeyUsageFunction", "PortalAgentUsageFunction")


def _usage_history(studio: Studio, agent_id: str, key_ids: list[str], days: int, since: int = 0) -> None:
    """``days`` days of usage ending today (those from ``since`` days back: the rest are there), as production leaves
    them: each day's chat turn on the workspace's usage
    item (ledger table, as a turn's settlement counts it) and, for each closed day, the keys' and the agent's
    requests on the workspace's day item (rate-limits table, as the limiter's hand-on moves them there)."""
    from core.credits.ledger_items import LedgerItems
    from core.credits.records import HoldUsage
    from core.platform import rate_limit, usage_counters

    settings, db = get_settings(), studio.portal.aws.dynamodb
    ledger, today = LedgerItems(settings.ledger_table), usage_counters.day_of(rate_limit.now())
    for back in range(since, days):
        day = today - back
        usage = HoldUsage(workspace_id=studio.workspace_id, key_id=key_ids[0], agent_id=agent_id,
                          day=usage_counters.date_of(day))  # fmt: skip
        update = ledger.count_usage(usage, 1)
        assert update is not None
        db.update_item(**update["Update"])
        if back:  # a closed day: handed on
            counters = {usage_counters.key_name("u", k): 3 for k in key_ids}
            counters[usage_counters.agent_name("u", agent_id)] = 3
            db.put_item(TableName=settings.rate_limits_table,
                        Item=to_item({"pk": usage_counters.day_item(studio.workspace_id, day)} | counters))  # fmt: skip


def _open_windows(studio: Studio, agent_id: str, key_ids: list[str]) -> None:
    """Each key's window item with today's requests for the agent on it (as the limiter counts an agent route)."""
    from core.platform import rate_limit, usage_counters

    today = usage_counters.day_of(rate_limit.now())
    tag = usage_counters.tag_of(agent_id)
    for key_id in key_ids:
        counters = {usage_counters.name("u", today): 2, usage_counters.name("u", today, tag): 2}
        studio.portal.aws.dynamodb.put_item(TableName=get_settings().rate_limits_table,
                                            Item=to_item({"pk": f"key#{key_id}"} | counters))  # fmt: skip


def _keys(studio: Studio, upto: int) -> list[str]:
    while len(listed := studio.ok("PortalKeysListFunction")["keys"]) < upto:
        studio.portal.mint_key(studio.who, studio.workspace_id)
    return sorted(k["id"] for k in listed)


def _usage(studio: Studio, meter: ItemsRead, function: str, ids: dict[str, str], days: int) -> tuple[Any, ...]:
    """One warm read of ``days`` days: the items read, the calls, and the days as answered."""
    studio.ok(function, 200, query={"days": str(days)}, **ids)
    with meter.record():
        answer = studio.ok(function, 200, query={"days": str(days)}, **ids)["days"]
    return meter.items, Counter(str(c) for c in meter.calls), answer


@pytest.mark.parametrize("function", USAGE)
def test_usage_reads_are_bounded_by_days_not_by_the_history(studio: Studio, meter: ItemsRead, function: str) -> None:
    """At a fixed count of keys (2), seven days read with 9 days of usage behind them, then with 90: the same items
    read and calls, and the seeded history is what is counted. Asking for 30 days instead of 7 reads 23 more day
    items and 23 more usage items, nothing else: the cost is bounded by the days asked for, not by the history."""
    agent = studio.agent()
    key_ids = _keys(studio, 2)
    ids = {"agent_id": agent["id"]} if function == "PortalAgentUsageFunction" else {"key_id": key_ids[0]}
    _open_windows(studio, agent["id"], key_ids)
    read, made = [], 0
    for days in (9, 90):
        _usage_history(studio, agent["id"], key_ids, days, since=made)
        made = days
        items, calls, answer = _usage(studio, meter, function, ids, 7)
        assert len(answer) == 7 and all(day["chatTurns"] == 1 for day in answer), answer
        # closed days from the day items (3 a day), today from the open windows (2 a key, the agent's on each)
        today = 2 * len(key_ids) if function == "PortalAgentUsageFunction" else 2
        assert [day["requests"] for day in answer] == [3] * 6 + [today], answer
        read.append((items, calls))
    assert read[0] == read[1], f"{function}: items read and calls with 9 and 90 days of history"
    thirty = _usage(studio, meter, function, ids, 30)
    assert (thirty[0] - read[1][0], thirty[1]) == (2 * 23, read[1][1]), "30 days: 23 day items and 23 usage items more"


@pytest.mark.parametrize("function", USAGE)
def test_usage_reads_grow_with_the_workspaces_keys(studio: Studio, meter: ItemsRead, function: str) -> None:
    """Documented, not hidden (docs/decisions.md, "An agent's usage in one round trip"): a usage read lists the
    workspace's keys (key usage: is this key one of them; agent usage: which keys' windows count), and an agent's
    requests are on every key's window item, so the items read grow by one a key (the listing's) for key usage and
    two a key (the listing's and the key's window) for agent usage: linear in keys, in the same calls. At a fixed
    count of keys they are bounded by the days asked for (the test above)."""
    agent = studio.agent()
    read = {}
    for keys in (2, 20):
        key_ids = _keys(studio, keys)
        ids = {"agent_id": agent["id"]} if function == "PortalAgentUsageFunction" else {"key_id": key_ids[0]}
        _open_windows(studio, agent["id"], key_ids)
        _usage_history(studio, agent["id"], key_ids, 9)
        items, calls, answer = _usage(studio, meter, function, ids, 7)
        assert answer[-1]["requests"] == (2 * keys if function == "PortalAgentUsageFunction" else 2), answer
        read[keys] = (items, calls)
    per_key = 2 if function == "PortalAgentUsageFunction" else 1
    assert read[20][0] - read[2][0] == per_key * 18, read  # linear in keys
    assert read[20][1] == read[2][1], read  # in the same calls: one BatchGetItem holds 4 shards x 20 keys + 7 days


# ------------------------------------------------------------------ the pages issue 43 gave: walked, and refused

PAGED = {"keys": "PortalKeysListFunction", "workflows": "PortalWorkflowsListFunction",
         "invitations": "PortalInvitationsListFunction", "agents": "PortalAgentsListFunction",
         "members": "PortalMembersListFunction", "brands": "PortalBrandsListFunction"}  # fmt: skip


def page_of(studio: Studio, listing: Listing, query: dict[str, str] | None = None) -> tuple[list[Any], str | None]:
    """One page's records and the next page's cursor: in the body's ``nextCursor``, or for a bare array (members,
    brands: service-api.md fixes the array) in the ``Next-Cursor`` header."""
    result = studio.call(listing.function, query=query, **listing.ids)
    assert result.status == 200, result.body
    answer = result.json()
    if isinstance(answer, list):
        return answer, result.header(NEXT_CURSOR)
    assert result.header(NEXT_CURSOR) is None  # one place for a cursor: the body's
    return answer[listing.shown], answer["nextCursor"]


def record_id(record: dict[str, Any]) -> str:
    return str(record.get("id") or record["userId"])


@pytest.mark.parametrize("name", PAGED)
def test_the_new_pages_walk_every_record_once(studio: Studio, name: str) -> None:
    """Pages of 2 through 7 records: each once, nothing else; the default page holds them all and names no next."""
    listing = LISTINGS[name](studio)
    listing.grow(7)
    everything, last = page_of(studio, listing)
    assert last is None and len(everything) == 7
    seen, cursor, pages = [], None, 0
    while True:
        records, cursor = page_of(studio, listing, {"limit": "2"} | ({"cursor": cursor} if cursor else {}))
        seen += [record_id(r) for r in records]
        pages += 1
        if cursor is None:
            break
    assert (sorted(seen), pages) == (sorted(record_id(r) for r in everything), 4)
    assert seen == [record_id(r) for r in everything]  # the pages keep the listing's order


def test_the_brands_first_page_opens_with_the_default(studio: Studio) -> None:
    """The default brand opens the first page wherever its id falls (a brand made later may be made the default),
    and no later page shows it again; a page of one shows the default alone, then every other brand follows."""
    listing = LISTINGS["brands"](studio)
    listing.grow(5)
    made = studio.brand("Later")
    studio.ok("PortalBrandUpdateFunction", brand_id=made["id"], body={"isDefault": True})
    for limit in ("1", "2", "200"):
        seen, cursor = [], None
        while True:
            records, cursor = page_of(studio, listing, {"limit": limit} | ({"cursor": cursor} if cursor else {}))
            seen += [r["id"] for r in records]
            if cursor is None:
                break
        assert seen[0] == made["id"] and sorted(seen) == sorted(set(seen)) and len(seen) == 6, (limit, seen)


@pytest.mark.parametrize("name", PAGED)
def test_a_cursor_the_listing_did_not_make_is_400(studio: Studio, name: str) -> None:
    from core.platform import cursors

    listing = LISTINGS[name](studio)
    other = "WORKFLOW#wf_01J00000000000000000000000" if name == "agents" else "AGENT#agt_01J00000000000000000000000"
    foreign = cursors.encode(other)  # another listing's position
    for cursor in ("not base64!", foreign, cursors.encode("")):
        refused = studio.call(listing.function, query={"cursor": cursor}, **listing.ids)
        assert (refused.status, refused.json()["code"]) == (400, "VALIDATION_ERROR"), (cursor, refused.body)
    outsider = studio.stranger("outsider@example.com")  # a stranger learns nothing: 404 before the cursor
    assert outsider.call(listing.function, query={"cursor": "not base64!"}, **listing.ids).status == 404
