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
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.core_clients import wrap_core_clients
from tests.support.insights_seed import ItemsRead
from tests.support.ledger_checks import ledger_repository
from tests.support.lists import LISTINGS, Listing, copies
from tests.support.portal import Portal
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
        answer = studio.ok(listing.function, 200, query=listing.query, **listing.ids)
    if isinstance(answer, list):  # a bare list (brands' listing predates the envelopes)
        return meter.items, Counter(str(c) for c in meter.calls), len(answer), None
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
HISTORY_PAGE = 50


def _grants(studio: Studio, upto: int, made: list[int]) -> None:
    ledger = ledger_repository(studio.portal.aws.dynamodb)
    for k in range(made[0], upto):  # a refund one entry in ten: a rare type, filtered or keyed
        ledger.grant(studio.who.user_id, 1, "refund" if k % 10 == 0 else "topup", f"ref_{k:06d}", "Top-up")
    made[0] = upto


def _history(studio: Studio, meter: ItemsRead, query: dict[str, str]) -> tuple[int, Counter[str]]:
    studio.ok(HISTORY, query=query)
    with meter.record():
        page = studio.ok(HISTORY, query=query)
    assert page["entries"], page
    return meter.items, Counter(str(c) for c in meter.calls)


@pytest.mark.parametrize("where", ["newest", "oldest", "refunds"])
def test_a_history_page_reads_the_same_at_n_and_ten_times_n(studio: Studio, meter: ItemsRead, where: str) -> None:
    """The newest page, the oldest (the deepest offset) and the newest refunds (one entry in ten): items read and
    calls equal at 60 and 600 entries."""
    made = [0]
    read = []
    for size in (HISTORY_PAGE + 10, (HISTORY_PAGE + 10) * TEN_TIMES):
        _grants(studio, size, made)
        query = {"limit": str(HISTORY_PAGE)}
        query |= {"offset": str(size - HISTORY_PAGE)} if where == "oldest" else {}
        query |= {"refType": "refund"} if where == "refunds" else {}
        read.append(_history(studio, meter, query))
    assert read[0] == read[1], f"history ({where}): items read and calls at two sizes"


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
         "invitations": "PortalInvitationsListFunction"}  # fmt: skip


@pytest.mark.parametrize("name", PAGED)
def test_the_new_pages_walk_every_record_once(studio: Studio, name: str) -> None:
    """Pages of 2 through 7 records: each once, nothing else; the default page holds them all and names no next."""
    listing = LISTINGS[name](studio)
    listing.grow(7)
    everything = studio.ok(listing.function, 200, **listing.ids)
    assert everything["nextCursor"] is None and len(everything[listing.shown]) == 7
    seen, cursor, pages = [], None, 0
    while True:
        query = {"limit": "2"} | ({"cursor": cursor} if cursor else {})
        page = studio.ok(listing.function, 200, query=query, **listing.ids)
        seen += [record["id"] for record in page[listing.shown]]
        pages += 1
        if (cursor := page["nextCursor"]) is None:
            break
    assert (sorted(seen), pages) == (sorted(r["id"] for r in everything[listing.shown]), 4)
    assert seen == [r["id"] for r in everything[listing.shown]]  # the pages keep the listing's order


@pytest.mark.parametrize("name", PAGED)
def test_a_cursor_the_listing_did_not_make_is_400(studio: Studio, name: str) -> None:
    from core.platform import cursors

    listing = LISTINGS[name](studio)
    foreign = cursors.encode("AGENT#agt_01J00000000000000000000000")  # another listing's position
    for cursor in ("not base64!", foreign, cursors.encode("")):
        refused = studio.call(listing.function, query={"cursor": cursor}, **listing.ids)
        assert (refused.status, refused.json()["code"]) == (400, "VALIDATION_ERROR"), (cursor, refused.body)
    outsider = studio.stranger("outsider@example.com")  # a stranger learns nothing: 404 before the cursor
    assert outsider.call(listing.function, query={"cursor": "not base64!"}, **listing.ids).status == 404
