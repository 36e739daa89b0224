"""AWS calls per request of every read endpoint (and a chat turn, and a key mint), at the data model's minimum.

The real handlers run against moto with a botocore hook on the service's own clients that records
each call's operation and table, and how many items each Query read beside how many it returned.
The numbers are the "Calls per request" table of docs/data-model.md; a change that adds a call,
or a Query that reads what it does not return (a filter after the read), fails here.

The key check of the read plane (the key's GetItem, its rate counter, ``lastUsedAt``) and the rate
counters (``RateLimitsTable``) are counted apart: they are the same for every endpoint and
documented with the rate limits; what is asserted is everything else a request asks of AWS.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from core import deps
from core.repositories.workspaces import WorkspaceRepository
from core.settings import get_settings
from local.events import SAMPLE_AGENT_ID, SAMPLE_WORKSPACE_ID
from tests.integration.portal.support import Portal, Session
from tests.support.core_clients import wrap_core_clients
from tests.support.lambdas import invoke, invoke_streamed, sample_event, stack, with_request
from tests.support.ledger_checks import ledger_repository
from tests.support.seed import Seeder

CLIENT = "v1_3f9a2c7e5b1d4e8fa6c0b2d4"
DRAFT_EVERY = 3  # a third of the posts are drafts, spread through the newest


@dataclass(frozen=True)
class Call:
    operation: str
    table: str  # the table's role ("main", "ledger", "keys", "rates"), "s3", or "" for other services
    together: bool = field(default=False, compare=False)  # issued with others (core.services.together's pool)

    def __str__(self) -> str:
        return f"{self.operation}:{self.table}"


@dataclass
class Recorder:
    """Every AWS call of core's clients while recording, and each Query's (Count, ScannedCount)."""

    tables: dict[str, str]
    calls: list[Call] = field(default_factory=list)
    queries: list[tuple[int, int]] = field(default_factory=list)
    recording: bool = False

    def attach(self, client: Any) -> Any:
        client.meta.events.register("before-call.*.*", self._before, unique_id="calls-before")
        client.meta.events.register("after-call.*.*", self._after, unique_id="calls-after")
        return client

    def _table(self, service: str, params: dict[str, Any]) -> str:
        if service == "s3":
            return "s3"
        if service != "dynamodb":
            return ""
        raw = params.get("body")
        body = json.loads(raw) if isinstance(raw, bytes | str) and raw else {}
        name = body.get("TableName") or next(iter(body.get("RequestItems", {})), "")
        if not name and body.get("TransactItems"):
            name = next(iter(body["TransactItems"][0].values()))["TableName"]
        return self.tables.get(name, name)

    def _before(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        if self.recording:
            pooled = threading.current_thread().name.startswith("together")
            self.calls.append(Call(model.name, self._table(model.service_model.endpoint_prefix, params), pooled))

    def _after(self, model: Any, parsed: dict[str, Any], **_: Any) -> None:
        if self.recording and model.name == "Query":
            self.queries.append((parsed.get("Count", 0), parsed.get("ScannedCount", 0)))

    @contextmanager
    def record(self) -> Iterator[Recorder]:
        self.calls, self.queries, self.recording = [], [], True
        try:
            yield self
        finally:
            self.recording = False

    def issued_together(self) -> Counter[str]:
        """The calls made from the pool of reads issued together (one round trip for all of them)."""
        return Counter(str(c) for c in self.calls if c.together)

    def beyond_key_check(self) -> Counter[str]:
        """The calls other than the key check and rate counters, as ``Operation:table`` counts."""
        return Counter(str(c) for c in self.calls if c.table not in ("keys", "rates"))


@pytest.fixture
def recorder(aws: Any, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    settings = get_settings()
    tables = {settings.main_table: "main", settings.ledger_table: "ledger", settings.api_keys_table: "keys",
              settings.rate_limits_table: "rates"}  # fmt: skip
    found = Recorder(tables)
    wrap_core_clients(found.attach, monkeypatch)
    deps.reset()
    return found


@pytest.fixture
def published(tenant: Any, seed: Seeder) -> Any:
    """The sample agent (with its workflow) and 200 posts, a third of them drafts spread through the newest,
    on two channels and three categories; active and inactive items."""
    seed.posts(
        SAMPLE_AGENT_ID, 200,
        published=lambda n: n % DRAFT_EVERY != 0,
        channels=lambda n: [["instagram"], ["site"], ["instagram", "site"]][n % 3],
        category=lambda n: [None, "news", "offers", "events"][n % 4],
    )  # fmt: skip
    seed.items(SAMPLE_AGENT_ID, [{"folder": "catalogue", "active": n % 4 != 0} for n in range(8)])
    return tenant


def read_plane(function: str, **query: str) -> Any:
    event = with_request(sample_event(function), query=query)  # {} clears the sample's own query
    return invoke(function, event)


def assert_exact_queries(recorder: Recorder) -> None:
    """Every Query read only items it returned (no filter discarded anything DynamoDB billed)."""
    assert recorder.queries and all(count == scanned for count, scanned in recorder.queries), recorder.queries


# --- read plane: agent GetItem + what the endpoint reads, issued together


@pytest.mark.parametrize(
    ("function", "query", "expected"),
    [
        ("BrainWhoAmIFunction", {}, {}),
        ("BrainAgentFunction", {}, {"GetItem:main": 1, "Query:main": 1}),
        ("BrainFeedFunction", {}, {"GetItem:main": 1, "Query:main": 1}),
        ("BrainFeedFunction", {"channel": "instagram"}, {"GetItem:main": 1, "Query:main": 1}),
        ("BrainFeedFunction", {"category": "news"}, {"GetItem:main": 1, "Query:main": 1}),
        ("BrainFeedFunction", {"channel": "site", "category": "offers"}, {"GetItem:main": 1, "Query:main": 1}),
        ("BrainItemsFunction", {}, {"GetItem:main": 1, "Query:main": 1}),
        ("BrainWrapFunction", {}, {"GetItem:main": 1}),
        ("BrainSiteFunction", {}, {"GetItem:main": 1}),
        ("BrainSuggestionsFunction", {}, {"GetItem:main": 2}),
    ],
    ids=[
        "whoami",
        "agent",
        "feed",
        "feed-channel",
        "feed-category",
        "feed-both",
        "items",
        "wrap",
        "site",
        "suggestions",
    ],
)
def test_read_plane_calls(
    published: Any, recorder: Recorder, function: str, query: dict[str, str], expected: dict[str, int]
) -> None:
    read_plane("BrainWhoAmIFunction")  # the key's first request of the minute (lastUsedAt) is not the one counted
    with recorder.record():
        result = read_plane(function, **query)
    assert result.status == 200, result.body
    assert recorder.beyond_key_check() == Counter(expected)
    together = sum(expected.values()) == 2 and function != "BrainSuggestionsFunction"  # the check and its read
    assert recorder.issued_together() == (Counter(expected) if together else Counter())
    if recorder.queries:
        assert_exact_queries(recorder)


@pytest.mark.parametrize(
    ("query", "predicate"),
    [
        ({}, lambda n: True),
        ({"channel": "instagram"}, lambda n: n % 3 in (0, 2)),
        ({"category": "news"}, lambda n: n % 4 == 1),
        ({"channel": "site", "category": "offers"}, lambda n: n % 3 in (1, 2) and n % 4 == 2),
    ],
    ids=["all", "channel", "category", "both"],
)
def test_every_feed_reads_exactly_its_page(
    published: Any, recorder: Recorder, query: dict[str, str], predicate: Callable[[int], bool]
) -> None:
    """One Query returns the whole page (drafts and other filters never read), newest first."""
    with recorder.record():
        result = read_plane("BrainFeedFunction", **query)
    wanted = [f"post_{n:05d}" for n in range(199, -1, -1) if n % DRAFT_EVERY != 0 and predicate(n)][:120]
    assert [p["id"] for p in result.json()] == wanted
    assert recorder.queries == [(len(wanted), len(wanted))]


def test_a_feed_read_again_within_seconds_comes_from_the_container(published: Any, recorder: Recorder) -> None:
    """The rendered feed is kept per container for FEED_CACHE_SECONDS: the second request costs only the
    key check; another filter, or a fresh container, reads again."""
    read_plane("BrainFeedFunction", channel="site")
    with recorder.record():
        again = read_plane("BrainFeedFunction", channel="site")
    assert again.status == 200 and recorder.beyond_key_check() == Counter()
    with recorder.record():
        read_plane("BrainFeedFunction", channel="instagram")
    assert recorder.beyond_key_check() == Counter({"GetItem:main": 1, "Query:main": 1})
    deps.reset()  # a new container
    with recorder.record():
        fresh = read_plane("BrainFeedFunction", channel="site")
    assert recorder.beyond_key_check() == Counter({"GetItem:main": 1, "Query:main": 1})
    assert fresh.json() == again.json()


def test_r2_reads_one_object(published: Any, recorder: Recorder, aws: Any) -> None:
    key = f"workspaces/{SAMPLE_WORKSPACE_ID}/assets/logo.png"
    aws.s3.put_object(Bucket=get_settings().content_bucket, Key=key, Body=b"png")
    event = sample_event("BrainR2Function")
    invoke_streamed("BrainR2Function", event)
    with recorder.record():
        result = invoke_streamed("BrainR2Function", sample_event("BrainR2Function"))
    assert result.status == 200, result.body
    assert recorder.beyond_key_check() == Counter({"GetObject:s3": 1})


def test_media_urls_sign_without_io(published: Any, recorder: Recorder, as_function: Any) -> None:
    """Signing URLs is computation: past the key check and the (cached) signing secret, no AWS call."""
    as_function("BrainMediaUrlsFunction")
    read_plane("BrainMediaUrlsFunction")
    with recorder.record():
        result = read_plane("BrainMediaUrlsFunction")
    assert result.status == 200, result.body
    assert recorder.beyond_key_check() == Counter()


# --- chat: every read at once, then the hold; delivery mark and settle as the stream runs


@pytest.fixture
def chat_function(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in stack().functions()["BrainChatFunction"].environment.items():
        if name != "AWS_LAMBDA_EXEC_WRAPPER":
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("CHAT_MODEL", "offline")
    monkeypatch.setenv("OFFLINE_MODEL_DELAY_MS", "0")
    deps.reset()


def test_a_chat_turn(published: Any, chat_function: None, recorder: Recorder, aws: Any) -> None:
    ledger_repository(aws.dynamodb).grant(published.ws.owner_id, 10, "topup", "top_1", "Top-up")
    body = json.dumps({"prompt": "What's new?", "client": CLIENT})
    event = with_request(sample_event("BrainChatFunction"), body=body)
    invoke_streamed("BrainChatFunction", event)
    with recorder.record():
        result = invoke_streamed("BrainChatFunction", event)
    assert result.status == 200 and result.lines()[-1]["type"] == "done", result.body
    assert recorder.beyond_key_check() == Counter({
        "BatchGetItem:main": 1,  # agent + workspace
        "Query:main": 3,  # the workspace's brands, active items, context posts
        "TransactWriteItems:ledger": 2,  # hold, settle
        "UpdateItem:ledger": 1,  # delivered mark
    })  # fmt: skip
    together = recorder.issued_together()
    assert +Counter({k: n for k, n in together.items() if not k.endswith(":rates")}) == Counter(
        {"BatchGetItem:main": 1, "Query:main": 3}
    )
    assert any(k.endswith(":rates") for k in together), "the visitor's count goes with the reads"
    assert_exact_queries(recorder)


def test_a_resumed_thread_reads_its_turns_together(
    published: Any, chat_function: None, recorder: Recorder, aws: Any
) -> None:
    """A workspace that stores conversations: a turn resuming a thread lists it once, then reads its turns at once."""
    stored = published.ws.model_copy(update={"store_conversations": True})
    WorkspaceRepository(aws.dynamodb, get_settings().main_table).put_workspace(stored)
    ledger_repository(aws.dynamodb).grant(published.ws.owner_id, 10, "topup", "top_1", "Top-up")
    body = json.dumps({"prompt": "What's new?", "client": CLIENT, "threadKey": "thr_1"})
    event = with_request(sample_event("BrainChatFunction"), body=body)
    for _ in range(2):  # two turns stored in the thread
        invoke_streamed("BrainChatFunction", event)
    with recorder.record():
        result = invoke_streamed("BrainChatFunction", event)
    assert result.lines()[-1]["type"] == "done", result.body
    s3 = Counter({k: n for k, n in recorder.beyond_key_check().items() if k.endswith(":s3")})
    assert s3 == Counter({"ListObjectsV2:s3": 1, "GetObject:s3": 2, "PutObject:s3": 1})
    assert recorder.issued_together()["GetObject:s3"] == 2


# --- management plane: the session check, then one membership read


def portal_get(portal: Portal, function: str, who: Session, **params: str) -> Any:
    return portal.call(function, token=who.token, params=params or None)


@pytest.fixture
def owner(portal: Portal, aws: Any) -> tuple[Session, str]:
    """A signed-in owner of a workspace, with a ledger entry (a history page to read)."""
    who = portal.sign_in("owner@example.com", plan="pro")
    ledger_repository(aws.dynamodb).grant(who.user_id, 5, "topup", "top_1", "Top-up")
    return who, portal.create_workspace(who)["id"]


PORTAL_READS = {  # (function, in a workspace, every call, the calls issued together)
    "workspace-get": ("PortalWorkspaceGetFunction", True, {"GetItem:main": 1, "BatchGetItem:main": 1}, {}),
    "workspaces-list": ("PortalWorkspacesListFunction", False, {"GetItem:main": 1, "Query:main": 1,
                                                                "BatchGetItem:main": 1}, {}),
    "members": ("PortalMembersListFunction", True, {"GetItem:main": 1, "BatchGetItem:main": 2, "Query:main": 1},
                {"BatchGetItem:main": 1, "Query:main": 1}),
    "brands": ("PortalBrandsListFunction", True, {"GetItem:main": 1, "BatchGetItem:main": 1, "Query:main": 1},
               {"BatchGetItem:main": 1, "Query:main": 1}),
    "keys": ("PortalKeysListFunction", True, {"GetItem:main": 1, "BatchGetItem:main": 1, "Query:keys": 1},
             {"BatchGetItem:main": 1, "Query:keys": 1}),
    "account": ("PortalAccountFunction", False, {"GetItem:main": 3}, {}),
    "balance": ("PortalCreditsBalanceFunction", False, {"GetItem:main": 1, "GetItem:ledger": 1}, {}),
    "history": ("PortalCreditsHistoryFunction", False, {"GetItem:main": 1, "GetItem:ledger": 1, "Query:ledger": 1},
                {"GetItem:ledger": 1, "Query:ledger": 1}),
}  # fmt: skip


@pytest.mark.parametrize("case", PORTAL_READS)
def test_portal_reads(portal: Portal, owner: tuple[Session, str], recorder: Recorder, case: str) -> None:
    """The session's GetItem, then the endpoint's own reads (a workspace route's access check: one BatchGetItem)."""
    function, in_workspace, expected, together = PORTAL_READS[case]
    who, workspace_id = owner
    path = {"workspaceId": workspace_id} if in_workspace else {}
    portal_get(portal, function, who, **path)  # a warm container: the signing secret is cached by then
    with recorder.record():
        result = portal_get(portal, function, who, **path)
    assert result.status == 200, result.body
    assert Counter(str(c) for c in recorder.calls) == Counter(expected)
    assert recorder.issued_together() == Counter(together)


def test_an_owners_key_mint_reads_access_and_plan_at_once(
    portal: Portal, owner: tuple[Session, str], recorder: Recorder
) -> None:
    who, workspace_id = owner
    portal.mint_key(who, workspace_id, name="warm-up")
    with recorder.record():
        portal.mint_key(who, workspace_id)
    assert Counter(str(c) for c in recorder.calls) == Counter({
        "GetItem:main": 1,  # the session
        "BatchGetItem:main": 1,  # membership, workspace and the caller (the owner: the plan)
        "PutItem:keys": 1,
    })  # fmt: skip
