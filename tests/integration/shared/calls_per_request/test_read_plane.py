"""AWS calls of each read-plane endpoint: the agent's GetItem and what the endpoint reads, issued together."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from core.platform import providers as platform_providers
from core.platform.settings import get_settings
from local.gateway.events import SAMPLE_API_KEY_ID, SAMPLE_WORKSPACE_ID
from tests.integration.shared.calls_per_request.conftest import DRAFT_EVERY
from tests.support.call_recorder import Recorder, assert_exact_queries
from tests.support.lambdas import invoke, invoke_streamed, sample_event, with_request


def read_plane(function: str, **query: str) -> Any:
    event = with_request(sample_event(function), query=query)  # {} clears the sample's own query
    return invoke(function, event)


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
    platform_providers.reset()  # a new container
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


@pytest.mark.parametrize("function", ["BrainWhoAmIFunction", "BrainAgentFunction", "BrainFeedFunction"])
def test_the_key_check_counts_usage_in_the_calls_it_made_before(
    published: Any, recorder: Recorder, function: str, aws: Any
) -> None:
    """Usage (issue 28, item 4) costs no call: the key's GetItem, the window's GetItem and its one conditional
    UpdateItem, as before; the request and its agent are counted by that UpdateItem."""
    read_plane("BrainWhoAmIFunction")  # the key's first request of the minute (lastUsedAt) is not the one counted
    with recorder.record():
        assert read_plane(function).status == 200
    assert Counter(str(c) for c in recorder.calls if c.table in ("keys", "rates")) == Counter(
        {"GetItem:keys": 1, "GetItem:rates": 1, "UpdateItem:rates": 1}
    )
    window = aws.dynamodb.get_item(
        TableName=get_settings().rate_limits_table, Key={"pk": {"S": f"key#{SAMPLE_API_KEY_ID}"}}
    )["Item"]
    counted = {name: int(av["N"]) for name, av in window.items() if name[:1] == "u"}
    agent_counters = {n: c for n, c in counted.items() if "~" in n}
    assert sum(c for n, c in counted.items() if "~" not in n) == 2
    assert list(agent_counters.values()) == ([] if function == "BrainWhoAmIFunction" else [1])
