"""Every list endpoint reads one page plus a cursor, whatever the data behind it (issue 43).

Each listing is read at two sizes: N records (its page and a few more) and ten times N. What the request asks of AWS is
recorded on core's own clients (``tests.support.insights_seed.ItemsRead``: the calls by operation and table, and
the items each Query evaluated and each BatchGetItem returned; S3's calls for objects) and must be EQUAL at both
sizes: a listing that reads everything, or filters after the read, reads ten times more at the larger size. Counts
of operations, never a wall-clock time.

The records are made once through the API, then copied with fresh ids (``tests.support.lists``). Usage is bounded
by ``days``, not by the data (its reader is H3's of issue 43); the webhooks' listing by the workspace's cap
(``WEBHOOKS_MAX``). The credit history's reader is being rebuilt (H1 of issue 43): its two-size cases here fail
until that lands.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.platform import providers as platform_providers
from core.platform.pages import NEXT_CURSOR
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.core_clients import wrap_core_clients
from tests.support.insights_seed import ItemsRead
from tests.support.ledger_checks import ledger_repository
from tests.support.lists import LISTINGS, Listing, copies
from tests.support.portal import Portal
from tests.support.streams import drain_events
from tests.support.webhooks import create as create_webhook

TEN_TIMES = 10


@pytest.fixture
def meter(aws: Any, monkeypatch: pytest.MonkeyPatch) -> ItemsRead:
    settings = get_settings()
    tables = {settings.main_table: "main", settings.ledger_table: "ledger", settings.api_keys_table: "keys",
              settings.rate_limits_table: "rates"}  # fmt: skip
    found = ItemsRead(tables)
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


@pytest.mark.parametrize("where", ["newest", "oldest", "refunds"])
def test_a_history_page_reads_the_same_at_n_and_ten_times_n(studio: Studio, meter: ItemsRead, where: str) -> None:
    """The newest page, the oldest (the deepest offset) and the newest refunds (one entry in ten), the history
    numberer caught up: items read and calls equal at 60 and 600 entries (the rows' Queries: one or two)."""
    made = [0]
    read = []
    for size in (HISTORY_PAGE + 10, (HISTORY_PAGE + 10) * TEN_TIMES):
        _grants(studio, size, made)
        # refunds are one entry in ten: their page is smaller, so that the smaller ledger holds more than a page
        page = REFUNDS_PAGE if where == "refunds" else HISTORY_PAGE
        query = {"limit": str(page)}
        query |= {"offset": str(size - page)} if where == "oldest" else {}
        query |= {"refType": "refund"} if where == "refunds" else {}
        read.append(_history(studio, meter, query))
    (small_items, small_calls), (large_items, large_calls) = read
    # A page of history rows spans at most two of the row partitions (blocks of 100 numbers over 16 partitions,
    # docs/ledger.md): one Query or two, as the page falls on a block's edge or not, whatever the ledger's size.
    rows = [calls.pop("Query:ledger", 0) for calls in (small_calls, large_calls)]
    assert small_items == large_items, f"history ({where}): items read at two sizes"
    assert small_calls == large_calls, f"history ({where}): calls other than the rows' Queries at two sizes"
    assert all(1 <= n <= 2 for n in rows), rows
    assert large_items <= 2 * HISTORY_PAGE + 3, read  # the numbered path: a page and at most one more, not a scan


# ------------------------------------------------------------------ usage: bounded by ``days`` (H3 rebuilds it)


def _usage_days(studio: Studio, agent_id: str, key_id: str, days: int) -> None:
    """The workspace's usage items of ``days`` days ending today, as the settlement counts a chat turn."""
    from core.credits.ledger_items import LedgerItems
    from core.credits.records import HoldUsage

    ledger, db = LedgerItems(get_settings().ledger_table), studio.portal.aws.dynamodb
    today = datetime.now(UTC)
    for back in range(days):
        day = (today - timedelta(days=back)).strftime("%Y-%m-%d")
        update = ledger.count_usage(HoldUsage(workspace_id=studio.workspace_id, key_id=key_id, agent_id=agent_id,
                                              day=day), 1)  # fmt: skip
        assert update is not None
        db.update_item(**update["Update"])


@pytest.mark.parametrize("function", ["PortalKeyUsageFunction", "PortalAgentUsageFunction"])
def test_usage_reads_are_bounded_by_days_not_by_the_data(studio: Studio, meter: ItemsRead, function: str) -> None:
    """Seven days of usage read with 2 keys and 9 days of usage behind them, then with 20 keys and 90 days: the same
    items read and calls; the days' items read are at most the days asked for."""
    agent = studio.agent()
    key = studio.portal.mint_key(studio.who, studio.workspace_id)
    ids = {"agent_id": agent["id"]} if function == "PortalAgentUsageFunction" else {"key_id": key["id"]}
    read = []
    for keys_made, days in ((2, 9), (20, 90)):
        while len(studio.ok("PortalKeysListFunction")["keys"]) < keys_made:
            studio.portal.mint_key(studio.who, studio.workspace_id)
        _usage_days(studio, agent["id"], key["id"], days)
        studio.ok(function, 200, query={"days": "7"}, **ids)
        with meter.record():
            assert len(studio.ok(function, 200, query={"days": "7"}, **ids)["days"]) == 7
        read.append((meter.items, Counter(str(c) for c in meter.calls)))
    assert read[0] == read[1], f"{function}: items read and calls at two sizes"


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
