"""At most 10 webhooks a workspace (``WEBHOOKS_MAX``): the workspace's ``webhookCount`` moves in each create's and
delete's transaction, the create conditioned on it, so creates at the same time cannot pass it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.support.authoring import Studio
from tests.support.portal import assert_error
from tests.support.webhooks import CREATE, DELETE, LIST, URL, create, webhook_count

BODY = {"url": URL, "events": ["*"]}


def test_ten_concurrent_creates_then_the_eleventh_is_refused(studio: Studio) -> None:
    with ThreadPoolExecutor(max_workers=10) as pool:
        results = list(pool.map(lambda _: studio.call_in_container(CREATE, body=BODY), range(10)))
    assert [r.status for r in results] == [201] * 10, [r.body for r in results]
    result = studio.call(CREATE, body=BODY)
    assert_error(result, 409, "CONFLICT")
    assert "10 webhooks" in result.json()["error"]
    assert len(studio.ok(LIST)["webhooks"]) == 10 and webhook_count(studio) == 10


def test_eleven_concurrent_creates_make_exactly_ten(studio: Studio) -> None:
    with ThreadPoolExecutor(max_workers=11) as pool:
        results = list(pool.map(lambda _: studio.call_in_container(CREATE, body=BODY), range(11)))
    assert sorted(r.status for r in results) == [201] * 10 + [409], [r.body for r in results]
    assert len(studio.ok(LIST)["webhooks"]) == 10 and webhook_count(studio) == 10


def test_a_deletion_makes_room(studio: Studio) -> None:
    made = [create(studio)["webhook"]["id"] for _ in range(10)]
    assert_error(studio.call(CREATE, body=BODY), 409, "CONFLICT")
    studio.ok(DELETE, webhook_id=made[0])
    assert webhook_count(studio) == 9
    create(studio)
    assert webhook_count(studio) == 10 and len(studio.ok(LIST)["webhooks"]) == 10
